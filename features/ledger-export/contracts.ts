// What GET /api/admin/ledger-export takes, shared by the route, the ledger page's button and the API reference.
// Browser-safe: zod only.

import { z } from "@/lib/core/schema/zod";

/** The longest range one export covers, in days (both ends included). */
export const LEDGER_EXPORT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const realDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a day like 2026-11-01")
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    "not a real day",
  );

/** GET /api/admin/ledger-export: UTC days, both included. */
export const ledgerExportQuery = z
  .object({
    from: realDay.describe("the first UTC day (YYYY-MM-DD)"),
    to: realDay.describe("the last UTC day, included (YYYY-MM-DD)"),
  })
  .refine((q) => q.from <= q.to, { path: ["to"], message: "must not be before from" })
  .refine((q) => (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1 <= LEDGER_EXPORT_MAX_DAYS, {
    path: ["to"],
    message: `at most ${LEDGER_EXPORT_MAX_DAYS} days from from`,
  });
export type LedgerExportQuery = z.infer<typeof ledgerExportQuery>;

/** The response header naming the months in the range that are in the archive (not in the export). */
export const ARCHIVED_MONTHS_HEADER = "x-tollgate-archived-months";

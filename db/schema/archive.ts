// What the archiver moved out of the ledger: one row per tenant and UTC month written to object storage.
import "server-only";
import { bigint, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const ledgerArchive = pgTable(
  "ledger_archive",
  {
    tenantId: uuid("tenant_id").notNull(),
    // The UTC calendar month of the archived turns' ids (UUIDv7), "YYYY-MM".
    month: text("month").notNull(),
    // Where the month's folder is: file:///… or s3://bucket/prefix/…
    location: text("location").notNull(),
    turns: integer("turns").notNull(),
    auditEvents: integer("audit_events").notNull(),
    // The gzip'd files' bytes, both tables.
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    manifestSha256: text("manifest_sha256").notNull(),
    archivedAt: timestamp("archived_at", { withTimezone: true }).notNull().defaultNow(),
    // Set when `npm run archive:restore` brought the rows back; the archiver then leaves the month alone.
    restoredAt: timestamp("restored_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.month] })],
);
export type LedgerArchive = typeof ledgerArchive.$inferSelect;

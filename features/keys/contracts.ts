// What the API-key routes take and answer, shared by the routes and the browser. Browser-safe: zod only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { z } from "@/lib/core/zod";

/** POST /api/keys */
export const createKeyInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "name the key, e.g. after the app that uses it")
    .max(100)
    .refine(hasNoNul, NO_NUL),
});

/** An API key as admins see it: never its secret, only the prefix that tells keys apart. */
export type KeyView = {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/**
 * GET /api/keys: each key with what its calls cost today and this month (UTC), summed exactly from the ledger's
 * closed rows; decimal strings ("0" when it made no priced call).
 */
export type KeyListItem = KeyView & { spentToday: string; spentThisMonth: string };

/** POST /api/keys answers the secret this once. */
export type CreatedKey = { secret: string; key: KeyView };

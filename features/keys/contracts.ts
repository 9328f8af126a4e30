// What the API-key routes take and answer, shared by the routes and the browser. Browser-safe: zod only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { z } from "@/lib/core/schema/zod";

/** At most this many tools in one key's list. */
export const MAX_ALLOWED_TOOLS = 200;

/** A tool's name as /mcp lists it: a built-in tool's, or a tenant MCP server's `server__tool` (what providers accept). */
const toolName = z
  .string()
  .trim()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, _ or -, as /mcp lists it");

/**
 * The tools a key may call over /mcp: null (or left out) for every tool the tenant offers there, else these names
 * (repeats dropped; an empty list lets the key call none). Names need not exist yet: a tenant server's tools come
 * and go, and a name that is not offered is simply not there.
 */
export const allowedToolsField = z
  .array(toolName)
  .max(MAX_ALLOWED_TOOLS, `at most ${MAX_ALLOWED_TOOLS} tools`)
  .transform((names) => [...new Set(names)])
  .nullable();

/** POST /api/keys */
export const createKeyInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "name the key, e.g. after the app that uses it")
    .max(100)
    .refine(hasNoNul, NO_NUL),
  allowedTools: allowedToolsField.optional(),
});

/** PATCH /api/keys/{id}: what may change on a live key (its secret and name never do). */
export const updateKeyInput = z.object({ allowedTools: allowedToolsField });

/** An API key as admins see it: never its secret, only the prefix that tells keys apart. */
export type KeyView = {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The tools it may call over /mcp; null: every tool the tenant offers there. */
  allowedTools: string[] | null;
};

/**
 * GET /api/keys: each key with what its calls cost today and this month (UTC), summed exactly from the ledger's
 * closed rows; decimal strings ("0" when it made no priced call).
 */
export type KeyListItem = KeyView & { spentToday: string; spentThisMonth: string };

/** POST /api/keys answers the secret this once. */
export type CreatedKey = { secret: string; key: KeyView };

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

/** A key's longest life from now: about five years. */
export const MAX_KEY_LIFETIME_DAYS = 1826;
const DAY_MS = 86_400_000;

/** An instant a key stops working: ISO 8601 with a time zone, in the future, at most MAX_KEY_LIFETIME_DAYS away. */
const expiresAtField = z.iso
  .datetime({
    offset: true,
    message: "an ISO 8601 date and time with a time zone, e.g. 2027-01-31T00:00:00Z",
  })
  .refine((at) => Date.parse(at) > Date.now(), "must be in the future")
  .refine(
    (at) => Date.parse(at) <= Date.now() + MAX_KEY_LIFETIME_DAYS * DAY_MS,
    `at most ${MAX_KEY_LIFETIME_DAYS} days (about 5 years) from now`,
  );

/** POST /api/keys; an expiry is `expiresInDays` from now or an instant `expiresAt` (not both); none: never. */
export const createKeyInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, "name the key, e.g. after the app that uses it")
      .max(100)
      .refine(hasNoNul, NO_NUL),
    allowedTools: allowedToolsField.optional(),
    expiresInDays: z
      .number()
      .int("a whole number of days")
      .min(1, "at least 1 day")
      .max(MAX_KEY_LIFETIME_DAYS, `at most ${MAX_KEY_LIFETIME_DAYS} days (about 5 years)`)
      .nullish(),
    expiresAt: expiresAtField.nullish(),
  })
  .refine((input) => input.expiresInDays == null || input.expiresAt == null, {
    path: ["expiresAt"],
    message: "give expiresInDays or expiresAt, not both",
  });

/** When a key being created expires (null: never), from `expiresInDays` or `expiresAt`. */
export function expiryOf(
  input: { expiresInDays?: number | null; expiresAt?: string | null },
  now = Date.now(),
): Date | null {
  if (input.expiresInDays != null) return new Date(now + input.expiresInDays * DAY_MS);
  return input.expiresAt ? new Date(input.expiresAt) : null;
}

/**
 * PATCH /api/keys/{id}: what may change on a live key (its secret and name never do): its tools, and its expiry
 * (`expiresAt`: an instant in the future, or null for never). At least one of them.
 */
export const updateKeyInput = z
  .object({ allowedTools: allowedToolsField.optional(), expiresAt: expiresAtField.nullable().optional() })
  .refine((input) => input.allowedTools !== undefined || input.expiresAt !== undefined, {
    path: ["allowedTools"],
    message: "give allowedTools or expiresAt",
  });

/** The most a rotation may leave the old key working beside its successor: 30 days. */
export const MAX_OVERLAP_HOURS = 720;

/** POST /api/keys/{id}/rotate: how long the old key keeps working beside its successor (hours, default 24). */
export const rotateKeyInput = z.object({
  overlapHours: z
    .number()
    .int("a whole number of hours")
    .min(0, "0 (the old key stops at once) or more")
    .max(MAX_OVERLAP_HOURS, `at most ${MAX_OVERLAP_HOURS} hours (30 days)`)
    .default(24),
});

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
  /** From when it is refused (401 key_expired); null: never. */
  expiresAt: Date | null;
  /** The key it replaced by a rotation, and the key that replaced it; null: none. */
  rotatedFrom: string | null;
  rotatedTo: string | null;
};

/**
 * GET /api/keys: each key with what its calls cost today and this month (UTC), summed exactly from the ledger's
 * closed rows; decimal strings ("0" when it made no priced call).
 */
export type KeyListItem = KeyView & { spentToday: string; spentThisMonth: string };

/** POST /api/keys answers the secret this once. */
export type CreatedKey = { secret: string; key: KeyView };

/** POST /api/keys/{id}/rotate: the successor's secret this once, the successor, and the old key as it now is. */
export type RotatedKey = { secret: string; key: KeyView; previous: KeyView };

// Tenant API keys.
import "server-only";
import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { tenantRef } from "./references";
import { appUser } from "./tenants";

// Tenant API keys for /v1: only a SHA-256 of the secret is stored (the secret is random, so no slow hash is needed).
export const apiKey = pgTable(
  "api_key",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => appUser.id),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    // The tools this key may call over /mcp (`server__tool` or a built-in tool's name); null: every tool the
    // tenant offers. The model API (/v1) does not read it.
    allowedTools: text("allowed_tools").array(),
    // From this instant the key is refused (401 key_expired); null: never. Checked on every call, cached or not.
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    // Rotation: the key this one replaced, and the key that replaced this one (set once; a key rotates once).
    rotatedFrom: uuid("rotated_from"),
    rotatedTo: uuid("rotated_to"),
  },
  (t) => [index("api_key_tenant_idx").on(t.tenantId, t.createdAt)],
);
export type ApiKey = typeof apiKey.$inferSelect;

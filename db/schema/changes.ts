// The admin change log.
import "server-only";
import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";

// Every change an admin makes (tenants, members, roles, invitations, API keys, limits, budgets, retention,
// sign-in settings): who, what, before and after (masked), when, and the request it came with.
export const adminChange = pgTable(
  "admin_change",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    actorId: uuid("actor_id").notNull(),
    actorEmail: text("actor_email").notNull(),
    action: text("action").notNull(),
    objectType: text("object_type").notNull(),
    objectId: text("object_id").notNull(),
    before: jsonb("before").$type<Record<string, unknown> | null>(),
    after: jsonb("after").$type<Record<string, unknown> | null>(),
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("admin_change_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("admin_change_created_idx").on(t.createdAt),
  ],
);
export type AdminChange = typeof adminChange.$inferSelect;

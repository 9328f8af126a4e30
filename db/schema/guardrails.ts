// Tenants' guardrail policies: the ordered rules the pipeline applies to every call.
import "server-only";
import { integer, jsonb, pgTable, uuid } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns";
import { tenant } from "./tenants";

// One row per tenant that has set a policy (none: no rules). The rules are one ordered document, read whole by
// every call and written whole by the admin page, so they are jsonb (checked by features/guardrails/contracts.ts
// on the way in) rather than a row each.
export const guardrailPolicy = pgTable("guardrail_policies", {
  tenantId: uuid("tenant_id")
    .primaryKey()
    .references(() => tenant.id, { onDelete: "cascade" }),
  rules: jsonb("rules").$type<Record<string, unknown>[]>().notNull().default([]),
  // null: the engine's default hold-back for output rules on a stream.
  holdBackChars: integer("hold_back_chars"),
  updatedAt: updatedAt(),
  updatedBy: uuid("updated_by"),
});
export type GuardrailPolicyRow = typeof guardrailPolicy.$inferSelect;

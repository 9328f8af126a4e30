// The demo tool set's business data.
import "server-only";
import { index, numeric, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { tenantRef } from "./references";

// The demo business data behind the orders tool set: per tenant, to show tenant scoping.
export const demoOrder = pgTable(
  "demo_order",
  {
    id: id(),
    tenantId: tenantRef(),
    number: text("number").notNull(),
    customer: text("customer").notNull(),
    status: text("status", { enum: ["open", "shipped", "delivered", "cancelled"] }).notNull(),
    totalUsd: numeric("total_usd", { precision: 12, scale: 2 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("demo_order_tenant_number_idx").on(t.tenantId, t.number),
    index("demo_order_tenant_status_idx").on(t.tenantId, t.status, t.createdAt),
  ],
);
export type DemoOrder = typeof demoOrder.$inferSelect;

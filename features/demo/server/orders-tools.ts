import "server-only";
import { and, asc, eq, ilike } from "drizzle-orm";
import { z } from "zod";
import { type Database, getDb } from "@/db";
import { type DemoOrder, demoOrder } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import { withCards } from "@/lib/agent/cards";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import { orderCard, ordersTableCard } from "./order-cards";

const STATUSES = ["open", "shipped", "delivered", "cancelled"] as const;

const view = (o: DemoOrder) => ({
  orderId: o.number,
  customer: o.customer,
  status: o.status,
  totalUsd: o.totalUsd,
  createdAt: o.createdAt.toISOString(),
});

/** One of the tenant's orders by its number (any case), or null: another tenant's order is not found either. */
export async function findDemoOrder(
  db: Database,
  tenantId: string,
  number: string,
): Promise<DemoOrder | null> {
  const [row] = await db
    .select()
    .from(demoOrder)
    .where(and(eq(demoOrder.tenantId, tenantId), eq(demoOrder.number, number.trim().toUpperCase())))
    .limit(1);
  return row ?? null;
}

/** A demo business tool set over the tenant's own orders: every query carries the caller's tenant. */
export function ordersToolSet(database: () => Promise<Database> = getDb): StaticToolSet {
  const queryOrders = defineTool({
    name: "query_orders",
    description: "List the organisation's orders, optionally by status and customer.",
    category: "orders",
    keywords: ["orders", "order", "open orders", "customer"],
    parameters: z.object({
      status: z.enum(STATUSES).optional().describe("Only orders with this status"),
      customer: z.string().max(200).optional().describe("Only orders whose customer name contains this"),
      limit: z.number().int().min(1).max(100).optional().describe("At most this many (default 20)"),
    }),
    execute: async ({ status, customer, limit }, ctx) => {
      const db = await database();
      const conditions = [eq(demoOrder.tenantId, ctx.tenantId)];
      if (status) conditions.push(eq(demoOrder.status, status));
      if (customer) conditions.push(ilike(demoOrder.customer, likeContains(customer)));
      const rows = await db
        .select()
        .from(demoOrder)
        .where(and(...conditions))
        .orderBy(asc(demoOrder.number))
        .limit(limit ?? 20);
      const orders = rows.map(view);
      // The model reads the plain list; the drawer shows it as a table.
      return withCards({ count: rows.length, orders }, ordersTableCard(orders, { status, customer }));
    },
  });
  const getOrder = defineTool({
    name: "get_order",
    description: "One order by its number, e.g. A-1001.",
    category: "orders",
    keywords: ["order number"],
    parameters: z.object({ orderId: z.string().min(1).max(40).describe("The order number, e.g. A-1001") }),
    execute: async ({ orderId }, ctx) => {
      const row = await findDemoOrder(await database(), ctx.tenantId, orderId);
      // Another tenant's order is "not found", like one that does not exist.
      if (!row) throw new Error(`order ${orderId} not found`);
      const order = view(row);
      return withCards(order, orderCard(order));
    },
  });
  return new StaticToolSet(
    "orders",
    [queryOrders, getOrder],
    "You can look up this organisation's orders with query_orders and get_order. Never guess order data.",
  );
}

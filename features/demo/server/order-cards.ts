// The drawer's cards for the demo orders tools: an order as key-value pairs (offered as a context item) and a
// list of orders as a typed table. The model never sees these; it reads the tools' plain results.
import type { AgentCardInput } from "@/lib/turns/cards";

/** An order as the orders tools return it to the model. */
export type OrderView = {
  orderId: string;
  customer: string;
  status: string;
  totalUsd: string;
  createdAt: string;
};

export function orderCard(order: OrderView): AgentCardInput {
  return {
    kind: "kv",
    title: `Order ${order.orderId}`,
    items: [
      { label: "Customer", value: order.customer },
      { label: "Status", value: order.status },
      { label: "Total", value: order.totalUsd, type: "money" },
      { label: "Placed", value: order.createdAt, type: "datetime" },
    ],
    context: { type: "order", id: order.orderId, label: `Order ${order.orderId}` },
  };
}

export function ordersTableCard(
  orders: OrderView[],
  filters: { status?: string; customer?: string },
): AgentCardInput {
  const which = [filters.status, filters.customer && `customer “${filters.customer}”`]
    .filter(Boolean)
    .join(", ");
  return {
    kind: "table",
    title: which ? `Orders (${which})` : "Orders",
    columns: [
      { key: "orderId", label: "Order", type: "text" },
      { key: "customer", label: "Customer", type: "text" },
      { key: "status", label: "Status", type: "text" },
      { key: "totalUsd", label: "Total", type: "money" },
      { key: "createdAt", label: "Placed", type: "datetime" },
    ],
    rows: orders.map((o) => ({ ...o })),
  };
}

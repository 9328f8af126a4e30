import { getDb } from "@/db";
import { deliveriesQuery } from "@/features/alerts/contracts";
import { alertOwnerOf, listDeliveries } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";

/** The owner's most recent alert deliveries (`limit`, default 50; `status` pending, delivered or dead). */
export const GET = withTenantAdmin(async (req, { auth }) => {
  const owner = alertOwnerOf(req, auth);
  const query = deliveriesQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  const rows = await listDeliveries(await getDb(), owner, { limit: query.limit, status: query.status });
  return Response.json({
    deliveries: rows.map((d) => ({
      ...d,
      createdAt: d.createdAt.toISOString(),
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: d.status === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    })),
  });
});

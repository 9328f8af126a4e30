import { getDb } from "@/db";
import { alertOwnerOf, sendTestAlert } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { uuidOr404 } from "@/lib/core/schema/uuid";

/** Sends a test alert to one of the owner's channels; answers its delivery and how it went. */
export const POST = withTenantAdmin<{ id: string }>(async (req, { auth, params }) => {
  const owner = alertOwnerOf(req, auth);
  return Response.json(await sendTestAlert(await getDb(), uuidOr404(params.id), owner));
});

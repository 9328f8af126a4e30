import { getDb } from "@/db";
import { alertChannelPatch } from "@/features/alerts/contracts";
import { alertOwnerOf, deleteChannel, updateChannel } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/** Changes a channel; config fields left out (the webhook secret, the Slack URL) keep their stored values. */
export const PATCH = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  const id = uuidOr404(params.id);
  const patch = await readJson(req, alertChannelPatch);
  return Response.json({
    channel: await updateChannel(await getDb(), owner, id, patch, actorOf(auth, requestId)),
  });
});

/** Deletes a channel, its deliveries, and its place on the owner's rules. */
export const DELETE = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  await deleteChannel(await getDb(), owner, uuidOr404(params.id), actorOf(auth, requestId));
  return new Response(null, { status: 204 });
});

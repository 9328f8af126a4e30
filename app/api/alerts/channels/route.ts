import { getDb } from "@/db";
import { alertChannelInput } from "@/features/alerts/contracts";
import { alertOwnerOf, createChannel, listChannels } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The alert channels of the active tenant (or the platform's); secrets answered as `secretSet` only. */
export const GET = withTenantAdmin(async (req, { auth }) => {
  const owner = alertOwnerOf(req, auth);
  return Response.json({ channels: await listChannels(await getDb(), owner) });
});

/** Creates a webhook, Slack or email channel. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  const input = await readJson(req, alertChannelInput);
  const channel = await createChannel(await getDb(), owner, input, actorOf(auth, requestId));
  return Response.json({ channel }, { status: 201 });
});

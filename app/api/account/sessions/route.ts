import { getDb } from "@/db";
import { bumpSessionEpoch } from "@/features/account/server/account";
import { unstable_update } from "@/lib/auth";
import { epochProof } from "@/lib/auth/epoch";
import { withUser } from "@/lib/auth/guards";

/** Signs out every other session of yours (other browsers and devices); this one stays signed in. */
export const DELETE = withUser(async (_req, { auth }) => {
  const epoch = await bumpSessionEpoch(await getDb(), auth.user.id);
  await unstable_update({ epoch, epochProof: epochProof(auth.user.id, epoch) } as never);
  return Response.json({ signedOutOthers: true });
});

import { getDb } from "@/db";
import { changePasswordInput } from "@/features/account/contracts";
import { changePassword } from "@/features/account/server/account";
import { unstable_update } from "@/lib/auth";
import { epochProof } from "@/lib/auth/epoch";
import { withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

/** Changes your password (the current one required); your other sessions end, this one stays. */
export const POST = withUser(async (req, { auth }) => {
  const input = await readJson(req, changePasswordInput);
  const epoch = await changePassword(await getDb(), auth.user.id, input);
  await unstable_update({ epoch, epochProof: epochProof(auth.user.id, epoch) } as never);
  return Response.json({ changed: true });
});

import { getDb } from "@/db";
import { acceptInvitationInput } from "@/features/members/contracts";
import { acceptInvitation, lookupInvitation } from "@/features/members/server/members";
import { passSignInThrottle } from "@/lib/auth/sign-in";
import { recordSignInFailure } from "@/lib/auth/throttle";
import { AppError } from "@/lib/core/errors/app-error";
import { clientAddress } from "@/lib/http/client-address";
import { readJson, route } from "@/lib/http/route";

/**
 * Accepts an invitation once: a new invitee sends `{name, password}` (the password they will sign in with), an
 * existing account `{password}` (its own). The client then signs in through /api/login. Checking an existing
 * account's password here is throttled like sign-in, so an invitation cannot be used to guess it.
 */
export const POST = route<{ token: string }>(async (req, { params }) => {
  const input = await readJson(req, acceptInvitationInput);
  const db = await getDb();
  const invitation = await lookupInvitation(db, params.token);
  const keys = { email: invitation.email, address: clientAddress(req.headers) };
  if (invitation.accountExists) await passSignInThrottle(db, keys);
  try {
    const accepted = await acceptInvitation(db, params.token, input);
    return Response.json({ accepted: true, email: accepted.email });
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthorized") await recordSignInFailure(db, keys);
    throw error;
  }
});

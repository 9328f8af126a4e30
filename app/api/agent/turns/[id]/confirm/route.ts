import { confirmCallInput } from "@/features/drawer/contracts";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/**
 * The user's Approve / Deny on a call of their running turn that waits for it, on whichever instance runs the
 * turn (the decision is applied there, once). 404 when no such call waits for this user anywhere (another user's,
 * unknown, or ended); 409 when it was already decided, timed out or cancelled by Stop.
 */
export const POST = withUser<{ id: string }>(async (req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const { callId, approve } = await readJson(req, confirmCallInput);
  const result = await container().agent.confirmations.decide(
    { turnId: params.id, callId },
    { tenantId: tenant.id, userId: auth.user.id },
    approve,
  );
  if (result.status === "unknown")
    throw new AppError(
      "not_found",
      "no call of yours waits for a decision under this id: the turn has ended",
    );
  if (result.status === "settled") throw new AppError("conflict", SETTLED_MESSAGE[result.decision]);
  return Response.json({ callId, decision: approve ? "approve" : "deny" }, { status: 200 });
});

const SETTLED_MESSAGE = {
  approve: "this call was already approved",
  deny: "this call was already denied",
  timeout: "the time to answer ran out: the call was denied",
  cancelled: "the turn was stopped while the call waited: it did not run",
} as const;

import { getDb } from "@/db";
import { turnReplay } from "@/features/replay/server/replay";
import { withUser } from "@/lib/auth/guards";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { container } from "@/server/container";

/**
 * A turn's replay (ledger row, audit events in seq order, previous and next turn), for whoever may open the audit
 * page: the tenant's admins (their tenant only: another tenant's turn is 404) and the super admin.
 */
export const GET = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const { ctx } = container().pages.open("agent-audit", auth);
  return Response.json(
    await turnReplay(await getDb(), { tenantId: ctx.tenantId, turnId: uuidOr404(params.id) }),
  );
});

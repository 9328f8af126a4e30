import { getDb } from "@/db";
import { archivedTurn } from "@/features/replay/server";
import { turnReplay } from "@/features/replay/server/replay";
import { withUser } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { container } from "@/server/container";

/**
 * A turn's replay (ledger row, audit events in seq order, previous and next turn), for whoever may open the audit
 * page: the tenant's admins (their tenant only: another tenant's turn is 404) and the super admin. A turn whose
 * month this tenant archived is 410, naming where it is and how to bring it back (as the replay page says).
 */
export const GET = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const { ctx } = container().pages.open("agent-audit", auth);
  const turnId = uuidOr404(params.id);
  const db = await getDb();
  try {
    return Response.json(await turnReplay(db, { tenantId: ctx.tenantId, turnId }));
  } catch (error) {
    if (!(error instanceof AppError && error.code === "not_found")) throw error;
    const archive = await archivedTurn(db, { tenantId: ctx.tenantId, turnId });
    if (!archive) throw error;
    throw new AppError(
      "gone",
      `this turn is in the ledger archive (${archive.month}) at ${archive.location}; restore its month with: ${archive.restoreCommand}`,
    );
  }
});

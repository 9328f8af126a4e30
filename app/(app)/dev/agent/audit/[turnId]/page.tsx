import { forbidden, notFound } from "next/navigation";
import { getDb } from "@/db";
import { readFromReplica } from "@/features/admin-tables/server";
import { ArchivedTurnView } from "@/features/replay/components/archived-turn";
import { ReplayView } from "@/features/replay/components/replay-view";
import { archivedTurn, turnReplay } from "@/features/replay/server";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { titleMetadata } from "@/lib/i18n/metadata";
import { container } from "@/server/container";

export const generateMetadata = titleMetadata("replay.title");

/**
 * One turn's replay (a permalink), for whoever may open the audit page; another tenant's turn is 404. A turn no
 * longer in the database whose month this tenant archived says where it is and how to restore it.
 */
export default async function Page({ params }: { params: Promise<{ turnId: string }> }) {
  const auth = await requireUser();
  const { turnId } = await params;
  try {
    const { ctx } = container().pages.open("agent-audit", auth);
    if (!isUuid(turnId)) notFound();
    // From the read replica where there is one (a turn it has not replayed yet is read from the primary).
    const data = await readFromReplica(container().reads, (db) =>
      turnReplay(db, { tenantId: ctx.tenantId, turnId }).catch((error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return null;
        throw error;
      }),
    );
    if (!data) {
      const archive = await archivedTurn(await getDb(), { tenantId: ctx.tenantId, turnId });
      if (archive) return <ArchivedTurnView turnId={turnId} archive={archive} />;
      notFound();
    }
    return <ReplayView key={turnId} data={data} superAdmin={ctx.superAdmin && !ctx.tenantId} />;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
}

import { forbidden, notFound } from "next/navigation";
import { readFromReplica } from "@/features/admin-tables/server";
import { RunReplayView } from "@/features/replay/components/run-replay-view";
import { runReplay } from "@/features/replay/server";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { titleMetadata } from "@/lib/i18n/metadata";
import { validRunId } from "@/lib/turns/run-id";
import { container } from "@/server/container";

export const generateMetadata = titleMetadata("replay.run.title");

/**
 * One run's replay, for whoever may open the Runs page; a run with no call in the viewer's tenant is 404. The super
 * admin's platform view names the run's tenant in `?tenant=` (the Runs page's links carry it).
 */
export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ runId: string }>;
  searchParams: Promise<{ tenant?: string | string[] }>;
}) {
  const auth = await requireUser();
  const runId = validRunId(decoded((await params).runId));
  const tenantParam = (await searchParams).tenant;
  const runTenantId = typeof tenantParam === "string" && isUuid(tenantParam) ? tenantParam : null;
  try {
    const { ctx } = container().pages.open("agent-runs", auth);
    if (!runId) notFound();
    // From the read replica where there is one (a run it has not seen yet is read from the primary).
    const data = await readFromReplica(container().reads, (db) =>
      runReplay(db, { tenantId: ctx.tenantId, runId, runTenantId }).catch((error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return null;
        throw error;
      }),
    );
    if (!data) notFound();
    return <RunReplayView key={runId} data={data} superAdmin={ctx.superAdmin && !ctx.tenantId} />;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
}

/** The path segment as the run id it encodes (the links encode it); a segment that does not decode is taken as sent. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import "server-only";
import { getDb } from "@/db";
import { findDatasetByName } from "@/features/evals/server/datasets";
import { cancelRun, createRun, getRun } from "@/features/evals/server/runs";
import type { NewRun } from "@/features/evals/server/types";
import { checkApiKey, keyExpiredMessage } from "@/lib/auth/api-keys";
import { AppError, notFound, unauthorized } from "@/lib/core/errors/app-error";
import { log } from "@/lib/core/process/log";
import { readJson, route } from "@/lib/http/route";
import { container } from "@/server/container";
import { createRunInput } from "../contracts";

/** Where the API-key evaluation endpoints live under /v1 (the CI gate, `npm run eval`). */
export const V1_EVALS_PREFIX = "/v1/evals/";

/**
 * The evaluation endpoints with a tenant API key (`Authorization: Bearer tg_…` or `x-api-key`), for CI:
 * GET /v1/evals/datasets/{name}, POST /v1/evals/runs (as POST /api/evals/runs), GET /v1/evals/runs/{id}
 * (`?items=0` leaves the items out), POST /v1/evals/runs/{id}/cancel. Errors are in the app's shape
 * (`{error: {code, message, fields}}`). A run started here is metered against the key (its ledger rows carry it).
 */
export const v1Evals = route(async (req) => {
  const header = req.headers.get("authorization") ?? "";
  const secret = header.match(/^Bearer\s+(.+)$/i)?.[1]?.trim() || req.headers.get("x-api-key")?.trim();
  const db = await getDb();
  const checked = secret ? await checkApiKey(db, secret) : null;
  if (checked?.status === "expired") throw new AppError("unauthorized", keyExpiredMessage(checked.expiredAt));
  if (checked?.status !== "live") throw unauthorized();
  const { key } = checked;
  const url = new URL(req.url);
  const rest = url.pathname.replace(/\/+$/, "").slice(V1_EVALS_PREFIX.length);
  const dataset = rest.match(/^datasets\/(.+)$/);
  if (req.method === "GET" && dataset) {
    const found = await findDatasetByName(db, key.tenantId, decodeURIComponent(dataset[1]!));
    const { items, ...summary } = found;
    return Response.json({ dataset: summary });
  }
  if (req.method === "POST" && rest === "runs") {
    const input = await readJson(req, createRunInput);
    const app = container();
    const created = await createRun(
      db,
      key.tenantId,
      input as NewRun,
      { userId: key.createdBy, apiKeyId: key.id },
      app.gateway,
    );
    void app.evals.tick().catch((error: unknown) => log.error({ err: error }, "evaluation runner failed"));
    return Response.json(created, { status: 201 });
  }
  const run = rest.match(/^runs\/([^/]+)(\/cancel)?$/);
  if (run && req.method === "GET" && !run[2]) {
    const items = url.searchParams.get("items") !== "0";
    return Response.json(await getRun(db, key.tenantId, run[1]!, { items }));
  }
  if (run && req.method === "POST" && run[2]) {
    const cancelled = await cancelRun(db, key.tenantId, run[1]!);
    return Response.json({ cancelled });
  }
  if (run || dataset || rest === "runs")
    throw new AppError("bad_request", `${req.method} is not allowed here`);
  throw notFound("endpoint");
});

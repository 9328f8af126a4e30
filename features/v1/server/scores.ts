import "server-only";
import type { Database } from "@/db";
import { scoreInput } from "@/features/scores/contracts";
import { putScore, scoreSourceFor } from "@/features/scores/server";
import type { ResolvedKey } from "@/lib/auth/api-keys";
import { AppError } from "@/lib/core/errors/app-error";
import { type ApiAnswer, type ApiRequest, jsonAnswer } from "@/lib/http/exchange";
import type { Dialect } from "./dialects";
import { readBody } from "./read-body";

/**
 * POST /v1/scores with a tenant API key: a score on a turn or a run of the key's tenant, as POST /api/scores puts
 * it, with source `api` by default (or `eval`; never `human`: a key has no person) and the key as its author.
 * Errors in the caller's dialect: 422 naming the field (`param`) for a bad value or one its score config refuses,
 * 404 for a turn or run that is not the tenant's (another tenant's as a made-up one), 409 for a turn that holds
 * its share of scores.
 */
export async function postScore(
  db: Database,
  key: ResolvedKey,
  req: ApiRequest,
  dialect: Dialect,
): Promise<ApiAnswer> {
  const read = readBody(req, dialect);
  if (read.refused) return read.refused;
  const parsed = scoreInput.safeParse(read.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.length ? issue.path.join(".") : null;
    return dialect.error(422, param ? `${param}: ${issue.message}` : issue.message, "invalid_score", param);
  }
  try {
    const source = scoreSourceFor("key", parsed.data.source);
    const put = await putScore(db, { tenantId: key.tenantId, apiKeyId: key.id }, parsed.data, source);
    return jsonAnswer(put.created ? 201 : 200, { score: put.score });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const param = Object.keys(error.extra.fields ?? {})[0] ?? null;
    const code =
      error.code === "not_found"
        ? "not_found"
        : error.code === "conflict"
          ? "score_limit_reached"
          : "invalid_score";
    return dialect.error(error.status, param ? `${param}: ${error.message}` : error.message, code, param);
  }
}

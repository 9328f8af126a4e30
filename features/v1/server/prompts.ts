import "server-only";
import { createHash } from "node:crypto";
import type { Database } from "@/db";
import { describeRef, findVersion, type VersionRef } from "@/features/prompts/server";
import { type ApiAnswer, type ApiRequest, headerOf } from "@/lib/http/exchange";
import type { Dialect } from "./dialects";

/**
 * GET /v1/prompts/{name}?label=…|version=N (the `production` label when neither) with a tenant API key: one
 * version for applications that compile prompts themselves. The body's ETag lets a client poll cheaply:
 * `If-None-Match` with it answers 304 until the label moves (or the version's labels change).
 */
export async function getPrompt(
  db: Database,
  tenantId: string,
  name: string,
  req: ApiRequest,
  dialect: Dialect,
): Promise<ApiAnswer> {
  const params = new URLSearchParams(req.query ?? "");
  const ref: VersionRef = {};
  const version = params.get("version");
  const label = params.get("label");
  if (version !== null) {
    if (!/^\d{1,9}$/.test(version) || Number(version) < 1)
      return dialect.error(400, "version: must be a version number, such as 3", "invalid_request", "version");
    ref.version = Number(version);
  }
  if (label !== null) {
    if (ref.version !== undefined)
      return dialect.error(400, "label: give version or label, not both", "invalid_request", "label");
    ref.label = label;
  }
  const found = await findVersion(db, tenantId, name, ref);
  if (!found) return dialect.error(404, `${describeRef(name, ref)} was not found`, "prompt_not_found");
  const body = JSON.stringify({
    name: found.name,
    version: found.version,
    type: found.type,
    ...(found.type === "chat" ? { messages: found.messages } : { text: found.text }),
    config: found.config,
    variables: found.variables,
    labels: found.labels,
    commitMessage: found.message,
    createdBy: found.createdBy,
    createdAt: found.createdAt.toISOString(),
  });
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  const headers = { etag, "cache-control": "private, no-cache" };
  const asked = headerOf(req, "if-none-match");
  if (asked?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag))
    return { status: 304, headers, body: null };
  return { status: 200, headers: { "content-type": "application/json", ...headers }, body };
}

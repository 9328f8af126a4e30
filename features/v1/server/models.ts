import "server-only";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ModelInfo } from "@/lib/gateway/types";
import { type ApiAnswer, type ApiRequest, headerOf, jsonAnswer } from "@/lib/http/exchange";
import type { Dialect } from "./dialects";
import { readBody } from "./read-body";

/** Anthropic's clients send `anthropic-version`: they get Anthropic's model objects. */
const wantsAnthropic = (req: ApiRequest) => headerOf(req, "anthropic-version") !== undefined;

const openAIModel = (m: ModelInfo, created: number) => ({
  id: m.alias,
  object: "model",
  created,
  owned_by: m.provider,
});
const anthropicModel = (m: ModelInfo) => ({
  type: "model",
  id: m.alias,
  display_name: m.label,
  created_at: "2025-01-01T00:00:00Z",
});

/** GET /v1/models: the aliases (each a model to the caller), in the caller's family's shape. */
export function listModels(gateway: Gateway, req: ApiRequest): ApiAnswer {
  const models = gateway.models();
  if (wantsAnthropic(req)) {
    const data = models.map(anthropicModel);
    return jsonAnswer(200, {
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }
  const created = Math.floor(Date.now() / 1000);
  return jsonAnswer(200, { object: "list", data: models.map((m) => openAIModel(m, created)) });
}

/** GET /v1/models/{id}: one alias, or 404 naming the ones there are. */
export function getModel(gateway: Gateway, id: string, req: ApiRequest): ApiAnswer {
  const model = gateway.models().find((m) => m.alias === id);
  const anthropic = wantsAnthropic(req);
  if (!model) {
    const message = `The model \`${id}\` does not exist. Available: ${gateway.modelAliases().join(", ")}`;
    return anthropic
      ? jsonAnswer(404, { type: "error", error: { type: "not_found_error", message } })
      : jsonAnswer(404, {
          error: { message, type: "invalid_request_error", param: "model", code: "model_not_found" },
        });
  }
  return jsonAnswer(
    200,
    anthropic ? anthropicModel(model) : openAIModel(model, Math.floor(Date.now() / 1000)),
  );
}

/**
 * POST /v1/messages/count_tokens: passed through to the alias's first Anthropic candidate (Anthropic does not
 * bill it, so it is not a ledger row); an alias without one has no token counter to ask, and says so.
 */
export async function countTokens(req: ApiRequest, gateway: Gateway, dialect: Dialect): Promise<ApiAnswer> {
  const read = readBody(req, dialect);
  if (read.refused) return read.refused;
  const { body } = read;
  if (typeof body.model !== "string" || !gateway.hasModel(body.model))
    return dialect.error(
      typeof body.model === "string" ? 404 : 400,
      typeof body.model === "string"
        ? `The model \`${body.model}\` does not exist. Available: ${gateway.modelAliases().join(", ")}`
        : "model: model is required",
      "model_not_found",
      "model",
    );
  const events = gateway.forward({
    format: "anthropic-count-tokens",
    alias: body.model,
    body,
    stream: false,
    headers: {
      anthropicVersion: headerOf(req, "anthropic-version"),
      anthropicBeta: headerOf(req, "anthropic-beta"),
    },
    signal: req.signal,
  });
  let text = "";
  for await (const event of events) {
    if (event.type === "bytes") text += event.data;
    else if (event.type === "error") return dialect.callError(event.error, {});
  }
  return { status: 200, headers: { "content-type": "application/json" }, body: text };
}

import "server-only";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ModelInfo } from "@/lib/gateway/types";
import type { Dialect } from "./dialects";
import { readBody } from "./read-body";

/** Anthropic's clients send `anthropic-version`: they get Anthropic's model objects. */
const wantsAnthropic = (req: Request) => req.headers.has("anthropic-version");

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
export function listModels(gateway: Gateway, req: Request): Response {
  const models = gateway.models();
  if (wantsAnthropic(req)) {
    const data = models.map(anthropicModel);
    return Response.json({
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }
  const created = Math.floor(Date.now() / 1000);
  return Response.json({ object: "list", data: models.map((m) => openAIModel(m, created)) });
}

/** GET /v1/models/{id}: one alias, or 404 naming the ones there are. */
export function getModel(gateway: Gateway, id: string, req: Request): Response {
  const model = gateway.models().find((m) => m.alias === id);
  const anthropic = wantsAnthropic(req);
  if (!model) {
    const message = `The model \`${id}\` does not exist. Available: ${gateway.modelAliases().join(", ")}`;
    return anthropic
      ? Response.json({ type: "error", error: { type: "not_found_error", message } }, { status: 404 })
      : Response.json(
          { error: { message, type: "invalid_request_error", param: "model", code: "model_not_found" } },
          { status: 404 },
        );
  }
  return Response.json(anthropic ? anthropicModel(model) : openAIModel(model, Math.floor(Date.now() / 1000)));
}

/**
 * POST /v1/messages/count_tokens: passed through to the alias's first Anthropic candidate (Anthropic does not
 * bill it, so it is not a ledger row); an alias without one has no token counter to ask, and says so.
 */
export async function countTokens(req: Request, gateway: Gateway, dialect: Dialect): Promise<Response> {
  const body = await readBody(req, dialect);
  if (body instanceof Response) return body;
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
      anthropicVersion: req.headers.get("anthropic-version") ?? undefined,
      anthropicBeta: req.headers.get("anthropic-beta") ?? undefined,
    },
    signal: req.signal,
  });
  let text = "";
  for await (const event of events) {
    if (event.type === "bytes") text += event.data;
    else if (event.type === "error") return dialect.callError(event.error, new Headers());
  }
  return new Response(text, { headers: { "content-type": "application/json" } });
}

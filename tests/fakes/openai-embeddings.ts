// The fake OpenAI Embeddings route (POST /v1/embeddings): one deterministic unit vector per input item, as
// floats or as base64 float32 (the SDK asks for base64 unless the caller chose a format).
import type { ServerResponse } from "node:http";
import {
  type RecordedRequest,
  type RenderableReply,
  sendHeadersOnly,
  sendJson,
  sendTruncatedJson,
} from "./http";
import { openaiHeaders, sendOpenAIError } from "./openai-wire";

export const EMBEDDING_DEFAULT_MODEL = "text-embedding-3-small";
/** text-embedding-3-small's size when the request sets no `dimensions`. */
export const EMBEDDING_DEFAULT_DIMENSIONS = 1536;

export async function renderEmbeddings(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  if (reply.kind === "hang_after_headers") {
    return sendHeadersOnly(res, { "content-type": "application/json", ...openaiHeaders() });
  }
  const model =
    ("model" in reply ? reply.model : undefined) ?? stringOr(req.body.model, EMBEDDING_DEFAULT_MODEL);
  const usage = "usage" in reply ? reply.usage : undefined;
  const body = embeddingsBody(req.body, model, usage?.input);
  if (reply.kind === "cut") return sendTruncatedJson(res, body, openaiHeaders());
  sendJson(res, 200, body, openaiHeaders());
}

/** OpenAI's embeddings list for a request body; `promptTokens` overrides the word count. */
export function embeddingsBody(request: Record<string, unknown>, model: string, promptTokens?: number) {
  const items = inputItems(request.input);
  const dimensions =
    typeof request.dimensions === "number" ? request.dimensions : EMBEDDING_DEFAULT_DIMENSIONS;
  const base64 = request.encoding_format === "base64";
  const tokens = promptTokens ?? items.reduce((sum, item) => sum + tokenCount(item), 0);
  return {
    object: "list",
    data: items.map((item, index) => {
      const vector = unitVector(JSON.stringify(item), dimensions);
      return { object: "embedding", index, embedding: base64 ? toBase64(vector) : vector };
    }),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

type InputItem = string | number[];

/** A string is one item, a flat token array is one item, and an array of either is one item each. */
function inputItems(input: unknown): InputItem[] {
  if (typeof input === "string") return [input];
  if (!Array.isArray(input)) return [];
  if (input.every((x) => typeof x === "number")) return [input as number[]];
  return input.filter((x): x is InputItem => typeof x === "string" || Array.isArray(x));
}

// Words stand in for tokens in a string; a token array is its own count.
const tokenCount = (item: InputItem): number =>
  typeof item === "string" ? item.split(/\s+/).filter(Boolean).length : item.length;

/** Deterministic per input (the same text always embeds the same), float32-exact so base64 round-trips. */
function unitVector(seedText: string, dimensions: number): number[] {
  let state = 2166136261;
  for (let i = 0; i < seedText.length; i++) state = Math.imul(state ^ seedText.charCodeAt(i), 16777619);
  const raw: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    raw.push(state / 2 ** 32 - 0.5);
  }
  const norm = Math.hypot(...raw) || 1;
  return raw.map((x) => Math.fround(x / norm));
}

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

const stringOr = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);

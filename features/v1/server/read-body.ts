import type { Json } from "@/lib/gateway/translate/types";
import type { ApiAnswer, ApiRequest } from "@/lib/http/exchange";
import { apiBodyLimits, BodyRefused, parseJsonWithin } from "@/lib/http/limits";
import type { Dialect } from "./dialects";

const decoder = new TextDecoder();

/** Parses a body within the depth limit (its size was checked as it was read); a refusal is the answer. */
export function readBody(
  req: ApiRequest,
  dialect: Dialect,
): { body: Json; refused?: undefined } | { refused: ApiAnswer } {
  let body: unknown;
  try {
    body = parseJsonWithin(req.body ? decoder.decode(req.body) : "", apiBodyLimits().maxDepth);
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    return {
      refused: dialect.error(
        error.status,
        sentence(error.message),
        BODY_ERROR_CODE[error.reason],
        error.param,
      ),
    };
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    return { refused: dialect.error(400, "The request body must be a JSON object.", "invalid_request") };
  return { body: body as Json };
}

const BODY_ERROR_CODE = {
  too_large: "request_too_large",
  too_deep: "json_too_deep",
  invalid_json: "invalid_json",
} as const;

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

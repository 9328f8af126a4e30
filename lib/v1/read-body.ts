import type { Json } from "@/lib/gateway/translate/types";
import { apiBodyLimits, BodyRefused, readJsonWithin } from "@/lib/http/limits";
import type { Dialect } from "./dialects";

/** Reads a body within the size and depth limits; a refusal is the answer, in the caller's dialect. */
export async function readBody(req: Request, dialect: Dialect): Promise<Json | Response> {
  const limits = apiBodyLimits();
  let body: unknown;
  try {
    body = await readJsonWithin(req, limits);
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    return dialect.error(error.status, sentence(error.message), BODY_ERROR_CODE[error.reason], error.param);
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    return dialect.error(400, "The request body must be a JSON object.", "invalid_request");
  return body as Json;
}

const BODY_ERROR_CODE = {
  too_large: "request_too_large",
  too_deep: "json_too_deep",
  invalid_json: "invalid_json",
} as const;

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

// What every fake OpenAI route shares: the response headers and the error body the real API sends.
import type { ServerResponse } from "node:http";
import { fakeId, sendJson } from "./http";

export const OPENAI_DEFAULT_MODEL = "gpt-4o-mini-2024-07-18";

export const openaiHeaders = (): Record<string, string> => ({
  "x-request-id": fakeId("req_", 32),
  "openai-processing-ms": "42",
});

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function openaiErrorBody(status: number, message: string | undefined, type: string | undefined) {
  return {
    error: {
      message: message ?? `Fake OpenAI error (${status})`,
      type: type ?? errorType(status),
      param: null,
      code: null,
    },
  };
}

/** Sends an "error" reply as OpenAI does on every route. */
export function sendOpenAIError(
  res: ServerResponse,
  reply: { status: number; message?: string; type?: string; headers?: Record<string, string> },
): void {
  sendJson(res, reply.status, openaiErrorBody(reply.status, reply.message, reply.type), {
    ...openaiHeaders(),
    ...reply.headers,
  });
}

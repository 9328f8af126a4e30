import "server-only";
import { Readable } from "node:stream";
import OpenAI from "openai";
import type { NativeProvider } from "../native/types";
import { type Json, Untranslatable } from "../translate/types";
import type { ProviderType } from "../types";
import { attemptHooks } from "./adapter";
import { nodeRequest, webHeaders } from "./node-fetch";
import { OpenAIAdapter, SDK_CLIENT_OPTIONS } from "./openai";

/**
 * The drawer's adapter for a provider with its own API (Bedrock): the OpenAI adapter, whose SDK's requests are
 * translated on their way out (native/types.ts) and whose answers come back as OpenAI chat. One table serves
 * both the drawer and /v1; a field the provider cannot carry is a 400 naming it, as /v1 answers.
 */
export function nativeAdapter(type: ProviderType, native: NativeProvider): OpenAIAdapter {
  const openai = new OpenAI({
    apiKey: "signed-per-request",
    baseURL: "http://native.invalid/v1",
    ...SDK_CLIENT_OPTIONS,
    fetch: nativeFetch(native),
  });
  return new OpenAIAdapter({ client: { openai, type } });
}

const json = (status: number, body: Json) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function nativeFetch(native: NativeProvider): typeof fetch {
  return (async (_input: string | URL | Request, init: RequestInit = {}) => {
    const hooks = attemptHooks.getStore();
    const body = JSON.parse(String(init.body)) as Json;
    const stream = body.stream === true;
    const model = String(body.model);
    let translated: ReturnType<NativeProvider["translate"]>;
    try {
      translated = native.translate(body, { model, dropUnsupported: false, stream });
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      return json(400, {
        error: {
          message: error.message,
          type: "invalid_request_error",
          param: error.field,
          code: "unsupported_parameter",
        },
      });
    }
    const text = JSON.stringify(translated.body);
    const signal = init.signal ?? new AbortController().signal;
    const target = await native.target(model, stream, text, signal);
    const reply = await nodeRequest(
      target.url,
      { method: "POST", headers: target.headers, body: text, signal },
      hooks && (() => hooks.onResponse()),
    );
    const meta = { status: reply.status, statusText: reply.statusText, headers: webHeaders(reply.headers) };
    if (reply.status < 200 || reply.status > 299) {
      const raw = reply.kind === "whole" ? reply.body : Buffer.alloc(0);
      if (reply.kind === "stream") reply.body.destroy();
      return new Response(raw as unknown as BodyInit, meta);
    }
    if (stream) {
      if (reply.kind !== "stream")
        return json(502, { error: { message: "the provider did not stream", type: "api_error" } });
      const sse = native.stream(reply.body, model);
      return new Response(Readable.toWeb(sse) as ReadableStream, {
        status: 200,
        headers: { "content-type": "text/event-stream" },
      });
    }
    if (reply.kind !== "whole") {
      reply.body.destroy();
      return json(502, { error: { message: "the provider streamed a JSON request", type: "api_error" } });
    }
    let answer: Json;
    try {
      answer = JSON.parse(reply.body.toString("utf8")) as Json;
    } catch {
      return json(502, { error: { message: "the provider's answer was not JSON", type: "api_error" } });
    }
    return json(200, native.answer(answer, model));
  }) as typeof fetch;
}

import "server-only";
import { createHash } from "node:crypto";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import type { CachedAnswer, ResponseCacheStore } from "./cache-store";
import { type Call, emptyStamp, type Step } from "./types";

/** The exact-match key: everything that shapes the answer, nothing that doesn't (the signal, the caller). */
export function cacheKey(call: Call): string {
  if (call.wire) {
    // The whole body, and the beta flags that change what it means: any difference is another answer.
    const { format, body, headers } = call.wire;
    const shape = { format, body, beta: headers?.anthropicBeta ?? null, maxTokens: call.request.maxTokens };
    return createHash("sha256").update(JSON.stringify(shape)).digest("hex");
  }
  const r = call.request;
  const shape = {
    model: r.model,
    messages: r.messages,
    tools: r.tools?.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    toolChoice: r.toolChoice,
    temperature: r.temperature,
    maxTokens: r.maxTokens,
  };
  return createHash("sha256").update(JSON.stringify(shape)).digest("hex");
}

/**
 * The response cache: for the aliases a tenant opted in, an exact repeat of an earlier request is answered
 * from the cache for the tenant's TTL, without asking a provider; the hit costs 0 and its stamp says so.
 */
export function cacheStep(store: () => ResponseCacheStore): Step {
  const applies = (call: Call) => !call.noCache && call.policy.cacheAliases.includes(call.request.model);
  const step: Step = async function* cache(call, next) {
    const { policy, request, caller } = call;
    if (!applies(call)) return yield* next(call);
    const started = performance.now();
    const key = cacheKey(call);
    let hit: CachedAnswer | null = null;
    try {
      hit = await store().get(caller.tenantId, key);
    } catch (error) {
      countFailure("pipeline");
      log.error({ err: error }, "response cache read failed; asking the provider");
    }
    if (hit && call.wire && !hit.wire) hit = null; // a normalised answer cannot stand in for exact bytes
    if (hit) {
      if (hit.wire) {
        yield {
          type: "opened",
          provider: hit.servedProvider,
          model: hit.servedModel,
          fallbackIndex: null,
          dropped: hit.wire.dropped,
          cacheHit: true,
        };
        for (const data of hit.wire.bytes) yield { type: "bytes", data };
      } else if (call.stream) {
        if (hit.message.content) yield { type: "text", delta: hit.message.content };
        for (const toolCall of hit.message.toolCalls) yield { type: "tool_call", call: toolCall };
      }
      const ms = Math.round(performance.now() - started);
      yield {
        type: "done",
        response: {
          message: hit.message,
          finishReason: hit.finishReason,
          stamp: {
            ...emptyStamp(request.model),
            servedProvider: hit.servedProvider,
            servedAdapter: hit.servedAdapter,
            servedModel: hit.servedModel,
            timeToFirstTokenMs: ms,
            latencyMs: ms,
            cacheHit: true,
          },
        },
      };
      return;
    }
    const bytes: string[] = [];
    for await (const event of next(call)) {
      yield event;
      if (event.type === "bytes") bytes.push(event.data);
      if (event.type === "done") {
        const { message, finishReason, stamp } = event.response;
        await store()
          .set(
            caller.tenantId,
            key,
            request.model,
            {
              message,
              finishReason,
              servedProvider: stamp.servedProvider,
              servedAdapter: stamp.servedAdapter,
              servedModel: stamp.servedModel,
              ...(call.wire ? { wire: { bytes, dropped: stamp.droppedParams ?? [] } } : {}),
            },
            policy.cacheTtlSeconds,
          )
          .catch((error: unknown) => {
            countFailure("pipeline");
            log.error({ err: error }, "response cache write failed");
          });
      }
    }
  };
  return Object.assign(step, { applies });
}

import { nodeRequest } from "../adapters/node-fetch";
import type { AttemptClock } from "../attempt";
import { type CallContext, callFailedEvent } from "../call";
import { GatewayError } from "../errors";
import { deploymentKey, type GatewayCall, type ServingCandidate } from "../routing";
import { interruptedStreamEvent, usageSoFar } from "../streaming";
import { type Json, Untranslatable } from "../translate/types";
import { type MediaUnits, type Stamp, type StreamEvent, type Usage, ZERO_USAGE } from "../types";
import { type AnswerSummary, outputCeilingOf, summariseAnswer, upstreamUrl } from "./formats";
import { inProcessResponse } from "./in-process";
import { isMediaFormat, mediaAnswer, priceMedia } from "./media";
import { encodeMultipart } from "./multipart";
import { isUsageOnlyChunk, type Plan, planFor, type WireRequest, withoutNullUsage } from "./plan";
import { frame, type ParsedEvent } from "./sse";
import {
  replyOf,
  StreamSession,
  streamErrorClass,
  type UpstreamAnswer,
  upstreamError,
  upstreamHeaders,
} from "./upstream";

/**
 * A /v1 request in its caller's wire format: each candidate carries it whole (same format), translated (the
 * other), or is skipped when it cannot carry a field. Yields `opened` (who answers), the answer's bytes in the
 * caller's format, then exactly one `done` (usage read from the answer) or `error`. Retries and fallback as
 * for a stream: only before the first byte reaches the caller.
 */
export async function* forwardWireRequest(ctx: CallContext, wire: WireRequest): AsyncGenerator<StreamEvent> {
  const call = ctx.router.startCall({ model: wire.alias, messages: [], signal: wire.signal }, () => ({
    // For least-cost only: the caller's body, about four characters a token.
    inputTokens: Math.ceil(JSON.stringify(wire.body).length / 4),
    outputTokens: outputCeilingOf(wire.format, wire.body) ?? wire.maxTokens ?? 1_000,
  }));
  const policy = { dropUnsupported: call.spec.dropUnsupported === true, strict: call.spec.strict === true };
  let opened: { serving: ServingCandidate; plan: Plan; upstream: UpstreamAnswer; clock?: AttemptClock };
  try {
    const routed = await ctx.router.walkCandidates(
      call,
      async (serving, clock) => {
        let plan: Plan;
        try {
          // A test's in-process adapter stands in for the provider: it reads OpenAI chat, not the native form.
          const native = ctx.answersInProcess(serving) ? undefined : ctx.native(serving);
          plan = planFor(wire, serving.provider, serving.candidate.model, policy, native);
        } catch (error) {
          if (!(error instanceof Untranslatable)) throw error;
          const e = new GatewayError(
            "unsupported_parameter",
            `\`${error.field}\` cannot be sent to ${serving.candidate.provider}/${serving.candidate.model}: ${error.reason}`,
            400,
          );
          e.param = error.field;
          throw e;
        }
        const upstream = await openUpstream(ctx, serving, plan, wire, clock);
        if (wire.stream) clock.firstToken();
        return { plan, upstream };
      },
      { streaming: wire.stream },
    );
    opened = {
      plan: routed.value.plan,
      upstream: routed.value.upstream,
      serving: routed.serving,
      clock: routed.clock,
    };
  } catch (error) {
    yield callFailedEvent(ctx, call, error);
    return;
  }
  for (const event of call.pendingEvents.splice(0)) yield event;
  const { serving, plan, upstream, clock } = opened;
  yield {
    type: "opened",
    provider: serving.candidate.provider,
    model: serving.candidate.model,
    fallbackIndex: serving.index,
    dropped: plan.dropped,
  };
  const stampOf = (
    summary: { usage?: Usage; model?: string; contentFilter?: string[]; units?: MediaUnits },
    usage = summary.usage ?? ZERO_USAGE,
  ) => {
    const stamp = ctx.stamp(call, serving, summary.model ?? null, usage, call.firstTokenAt ?? call.elapsed());
    if (plan.dropped.length) stamp.droppedParams = plan.dropped;
    if (summary.contentFilter) stamp.contentFilter = summary.contentFilter;
    if (summary.units) priceMedia(stamp, summary.units, ctx.config.prices, serving);
    return stamp;
  };
  if (upstream.kind === "json") {
    yield { type: "bytes", data: upstream.text };
    yield answered(upstream.summary, stampOf(upstream.summary));
    return;
  }
  if (!clock) throw new Error("a streamed attempt without its clock");
  yield* relayStream(ctx, call, serving, plan, upstream, clock, wire, stampOf);
}

/** Sends the planned request to the candidate and reads up to the start of its answer. */
async function openUpstream(
  ctx: CallContext,
  serving: ServingCandidate,
  plan: Plan,
  wire: WireRequest,
  clock: AttemptClock,
): Promise<UpstreamAnswer> {
  // An upload goes as multipart/form-data, its parts as the caller sent them (`model` the candidate's).
  const upload = plan.multipart ? encodeMultipart(plan.multipart) : undefined;
  // Only a provider that signs in (Entra ID) waits for a token; the others' is undefined.
  const bearer = ctx.answersInProcess(serving) ? undefined : ctx.bearerToken(serving, clock.signal);
  const bodyText = upload ? "" : JSON.stringify(plan.body);
  // A native API's request is addressed and signed (SigV4) for its exact bytes.
  const target = plan.native
    ? await plan.native.target(serving.candidate.model, wire.stream, bodyText, clock.signal)
    : undefined;
  // Offline and test adapters answer in-process, inside the attempt's hooks (they stop its connect timer).
  const reply = ctx.answersInProcess(serving)
    ? await replyOf(
        await clock.run(() =>
          inProcessResponse(
            ctx.adapterFor(serving),
            plan.body,
            serving.candidate.model,
            wire.stream,
            clock.signal,
          ),
        ),
      )
    : await nodeRequest(
        target?.url ?? upstreamUrl(serving.provider, plan.upstream, serving.candidate.model),
        {
          method: "POST",
          headers:
            target?.headers ??
            upstreamHeaders(serving.provider, plan, wire, await bearer, upload?.contentType),
          body: upload ?? bodyText,
          signal: clock.signal,
        },
        clock.headersArrived,
      );
  clock.headersArrived();
  if (reply.status < 200 || reply.status > 299) throw await upstreamError(reply);
  if (!wire.stream) {
    if (reply.kind !== "whole")
      throw new GatewayError("server", "the provider answered with an event stream to a JSON request", 502);
    if (isMediaFormat(plan.upstream))
      return { kind: "json", ...mediaAnswer(plan.upstream, plan.body, reply.body) };
    const text = reply.body.toString("utf8");
    let answer: Json;
    try {
      answer = JSON.parse(text) as Json;
    } catch {
      throw new GatewayError("server", "the provider's answer was not JSON", 502);
    }
    if (plan.native) answer = plan.native.answer(answer, serving.candidate.model);
    const summary = summariseAnswer(plan.upstream, answer);
    if (!plan.convertJson)
      return { kind: "json", text: plan.native ? JSON.stringify(answer) : text, summary };
    try {
      return { kind: "json", text: JSON.stringify(plan.convertJson(answer)), summary };
    } catch (error) {
      // An answer the caller's format cannot hold (a tool call whose arguments are not JSON): the provider's.
      throw new GatewayError(
        "server",
        `the provider's answer could not be translated: ${(error as Error).message}`,
        502,
      );
    }
  }
  if (reply.kind !== "stream")
    throw new GatewayError("server", "the provider did not answer with an event stream", 502);
  const body = plan.native ? plan.native.stream(reply.body, serving.candidate.model) : reply.body;
  const session = new StreamSession(body, plan.upstream);
  // Up to the first event of the answer itself: an error before it is still the candidate's failure, and
  // another may be tried; what came before (Anthropic's message_start) is kept for the caller.
  await session.readPreamble();
  return { kind: "stream", session };
}

/** Relays an opened upstream stream to the caller, translated when the formats differ, until its end. */
async function* relayStream(
  ctx: CallContext,
  call: GatewayCall,
  serving: ServingCandidate,
  plan: Plan,
  upstream: Extract<UpstreamAnswer, { kind: "stream" }>,
  clock: AttemptClock,
  wire: WireRequest,
  stampOf: (summary: { usage?: Usage; model?: string }, usage?: Usage) => Stamp,
): AsyncGenerator<StreamEvent> {
  const key = deploymentKey(serving.candidate);
  call.firstTokenAt = call.elapsed();
  const { session } = upstream;
  const translator = plan.streamTranslator?.();
  const out = (events: ParsedEvent[]): string => {
    let text = "";
    for (const e of events) {
      if (translator) {
        for (const t of translator.push(e)) text += frame(t);
        continue;
      }
      if (plan.hideUsage && session.parsed(e) !== "[DONE]" && isUsageOnlyChunk(session.parsed(e) as Json))
        continue;
      text += `${plan.hideUsage ? withoutNullUsage(e.raw) : e.raw}\n\n`;
    }
    return text;
  };
  let finished = false;
  try {
    let pending = session.takeBuffered();
    for (;;) {
      const text = out(pending);
      if (text) yield { type: "bytes", data: text };
      const summary = session.summary;
      if (summary.error) {
        throw Object.assign(new GatewayError(streamErrorClass(summary.error.type), summary.error.message), {
          relayed: !translator,
        });
      }
      const next = await session.next();
      clock.tick();
      if (next === undefined) break;
      pending = next;
    }
    if (!session.summary.complete)
      throw new GatewayError("connection", "the provider's stream ended before the answer was complete");
    if (translator) {
      const tail = translator.end().map(frame).join("");
      if (tail) yield { type: "bytes", data: tail };
    }
    finished = true;
    ctx.router.cooldown.recordSuccess(key, clock.startedAt);
    yield answered(session.summary, stampOf(session.summary));
  } catch (error) {
    const s = session.summary;
    const estimateFrom = { messages: [{ role: "user" as const, content: JSON.stringify(wire.body) }] };
    const failure = interruptedStreamEvent(
      ctx,
      call,
      key,
      clock,
      wire.signal,
      error,
      usageSoFar(estimateFrom, s.content, s.toolCalls, s.usage),
      (u) => stampOf(s, u),
    );
    if ((error as { relayed?: boolean }).relayed) failure.error.relayed = true;
    yield failure;
  } finally {
    clock.dispose(finished ? undefined : new Error("stream closed by the caller"));
    if (!finished) {
      ctx.router.cooldown.release(key);
      await session.cancel();
    }
  }
}

/** The `done` event of a wire call: what its answer said (for the audit) and its stamp. */
const answered = (
  s: Pick<AnswerSummary, "content" | "toolCalls" | "finishReason">,
  stamp: Stamp,
): StreamEvent => ({
  type: "done",
  response: {
    message: { role: "assistant", content: s.content, toolCalls: s.toolCalls },
    finishReason: s.finishReason,
    stamp,
  },
});

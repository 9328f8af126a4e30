import type { AdapterEvent } from "./adapters/adapter";
import type { AttemptClock } from "./attempt";
import { adapterRequestFor, type CallContext, callFailedEvent } from "./call";
import { classify, countsAgainstDeployment, GatewayError } from "./errors";
import { deploymentKey, type GatewayCall, type ServingCandidate } from "./routing";
import {
  type ChatRequest,
  IMAGE_TOKEN_ESTIMATE,
  imageCount,
  type Stamp,
  type StreamEvent,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "./types";

/**
 * A streamed answer from the adapters. Retries and fallback happen only before the first token reaches the
 * caller; after that a failure ends the stream with an `error` event. Always ends with exactly one `done` or
 * `error`.
 */
export async function* streamChat(ctx: CallContext, req: ChatRequest): AsyncGenerator<StreamEvent> {
  const call = ctx.router.startCall(req);
  let opened: {
    serving: ServingCandidate;
    iterator: AsyncIterator<AdapterEvent>;
    first: AdapterEvent;
    clock: AttemptClock;
    reported?: Usage;
  };
  try {
    const routed = await ctx.router.walkCandidates(
      call,
      async (serving, clock) => {
        const adapterReq = adapterRequestFor(req, serving);
        const iterator = clock.run(() =>
          ctx.adapterFor(serving).stream(adapterReq, clock.signal)[Symbol.asyncIterator](),
        );
        let first = await clock.run(() => iterator.next());
        // Usage reported ahead of the answer (Anthropic's message_start) is not its first token.
        let reported: Usage | undefined;
        while (!first.done && first.value.type === "usage") {
          reported = first.value.usage;
          first = await clock.run(() => iterator.next());
        }
        if (first.done) throw new GatewayError("connection", "the provider's stream ended without an answer");
        clock.firstToken();
        return { iterator, first: first.value, reported };
      },
      { streaming: true },
    );
    opened = { ...routed.value, serving: routed.serving, clock: routed.clock! };
  } catch (error) {
    yield callFailedEvent(ctx, call, error);
    return;
  }
  for (const event of call.pendingEvents.splice(0)) yield event;

  const { serving, iterator, clock } = opened;
  const key = deploymentKey(serving.candidate);
  call.firstTokenAt = call.elapsed();
  let event: AdapterEvent | undefined = opened.first;
  let finished = false;
  const toolCalls: ToolCall[] = [];
  let content = "";
  let reported = opened.reported;
  try {
    while (event) {
      if (event.type === "usage") {
        reported = event.usage;
      } else if (event.type === "text") {
        content += event.delta;
        yield { type: "text", delta: event.delta };
      } else if (event.type === "tool_call") {
        toolCalls.push(event.call);
        yield { type: "tool_call", call: event.call };
      } else {
        finished = true;
        ctx.router.cooldown.recordSuccess(key, clock.startedAt);
        const stamp = ctx.stamp(call, serving, event.servedModel, event.usage, call.firstTokenAt);
        if (event.contentFilter) stamp.contentFilter = event.contentFilter;
        yield {
          type: "done",
          response: {
            message: { role: "assistant", content, toolCalls },
            finishReason: event.finishReason,
            stamp,
          },
        };
        return;
      }
      const next: IteratorResult<AdapterEvent> = await clock.run(() => iterator.next());
      clock.tick();
      event = next.done ? undefined : next.value;
    }
    throw new GatewayError("connection", "the provider's stream ended before the answer was complete");
  } catch (error) {
    // What was streamed was generated, and billed: the ledger counts it, estimated where the provider had not said.
    yield interruptedStreamEvent(
      ctx,
      call,
      key,
      clock,
      req.signal,
      error,
      usageSoFar(req, content, toolCalls, reported),
      (u) => ctx.stamp(call, serving, null, u, call.firstTokenAt),
    );
  } finally {
    // A consumer that stops reading (or Stop) ends the upstream request too.
    clock.dispose(finished ? undefined : new Error("stream closed by the caller"));
    if (!finished) {
      ctx.router.cooldown.release(key);
      await iterator.return?.().catch(() => undefined);
    }
  }
}

/**
 * A stream that failed after its first token: the deployment is judged, the attempt marked, and what was
 * streamed is counted (`sofar`), so the ledger has the tokens the provider will bill.
 */
export function interruptedStreamEvent(
  ctx: CallContext,
  call: GatewayCall,
  key: string,
  clock: AttemptClock,
  callerSignal: AbortSignal | undefined,
  error: unknown,
  sofar: { usage: Usage; estimated: boolean },
  stampWith: (usage: Usage) => Stamp,
): Extract<StreamEvent, { type: "error" }> {
  const c = classify(error, clock.signal, callerSignal);
  if (c.errorClass !== "aborted" && countsAgainstDeployment(c.errorClass))
    ctx.router.cooldown.recordFailure(key);
  else ctx.router.cooldown.release(key);
  const last = call.attempts[call.attempts.length - 1];
  if (last) Object.assign(last, { outcome: "error", errorClass: c.errorClass, status: c.status });
  const errorClass = c.errorClass === "aborted" ? "aborted" : "stream_interrupted";
  const counted = sofar.estimated ? " (tokens so far estimated from the text streamed)" : "";
  const stamp = stampWith(sofar.usage);
  if (sofar.estimated) stamp.usageEstimated = true;
  const message =
    errorClass === "aborted"
      ? "the request was stopped"
      : `the answer was cut off after it started: ${c.message}${counted}`;
  return { type: "error", error: { class: errorClass, message, status: c.status }, stamp };
}

// Tokenizers average about 4 characters a token in English; an estimate, used only when the provider's count is missing.
const CHARS_PER_TOKEN = 4;
const tokensOf = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/**
 * The usage of a stream that ended before its final count: what the provider reported so far, with the input
 * estimated from the request and the output from the text and tool calls streamed where it had not said more.
 */
export function usageSoFar(
  req: Pick<ChatRequest, "messages" | "tools">,
  content: string,
  toolCalls: ToolCall[],
  reported: Usage | undefined,
): { usage: Usage; estimated: boolean } {
  const seen = reported ?? ZERO_USAGE;
  const inputKnown = seen.inputTokens + seen.cachedInputTokens + seen.cacheWriteTokens > 0;
  const inputChars =
    req.messages.reduce((n, m) => n + m.content.length, 0) +
    (req.tools ?? []).reduce(
      (n, t) => n + t.name.length + t.description.length + JSON.stringify(t.parameters).length,
      0,
    );
  const outputChars = toolCalls.reduce(
    (n, call) => n + call.name.length + JSON.stringify(call.args).length,
    content.length,
  );
  const outputEstimate = tokensOf(outputChars);
  const usage: Usage = {
    ...seen,
    inputTokens: inputKnown
      ? seen.inputTokens
      : tokensOf(inputChars) + imageCount(req.messages) * IMAGE_TOKEN_ESTIMATE,
    outputTokens: Math.max(seen.outputTokens, outputEstimate),
  };
  return { usage, estimated: !inputKnown || outputEstimate > seen.outputTokens };
}

import type { AdapterEvent, AdapterRequest, AdapterResult, ModelAdapter } from "./adapters/adapter";
import { AnthropicAdapter } from "./adapters/anthropic";
import { nodeRequest } from "./adapters/node-fetch";
import { OfflineAdapter } from "./adapters/offline";
import { OpenAIAdapter } from "./adapters/openai";
import { AttemptClock } from "./attempt";
import {
  type Candidate,
  type GatewayConfig,
  own,
  ownMap,
  type ProviderConfig,
  providerSupportsVision,
} from "./config";
import { CooldownTracker } from "./cooldown";
import { type Classified, classify, countsAgainstDeployment, decide, GatewayError } from "./errors";
import {
  type AnswerSummary,
  DEFAULT_BASE_URL,
  PROVIDER_FAMILY,
  summariseAnswer,
  UPSTREAM_PATH,
} from "./forward/formats";
import { inProcessResponse } from "./forward/in-process";
import { isUsageOnlyChunk, type Plan, planFor, type WireRequest, withoutNullUsage } from "./forward/plan";
import { frame, type ParsedEvent } from "./forward/sse";
import {
  replyOf,
  StreamSession,
  streamErrorClass,
  type UpstreamAnswer,
  upstreamError,
  upstreamHeaders,
} from "./forward/upstream";
import { costOf, findServedPrice } from "./pricing";
import { sleep } from "./sleep";
import { type Json, Untranslatable } from "./translate/types";
import {
  type Attempt,
  type ChatRequest,
  type ChatResponse,
  IMAGE_TOKEN_ESTIMATE,
  imageCount,
  type ModelInfo,
  type Stamp,
  type StreamEvent,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "./types";

export type GatewayDeps = {
  now?: () => number;
  random?: () => number;
  /** Replace the adapter of a provider by name (tests). */
  adapters?: Record<string, ModelAdapter>;
};

type Served = {
  index: number;
  candidate: Candidate;
  provider: ProviderConfig & { name: string };
  toolsDropped: boolean;
};

/**
 * The model gateway: resolves an alias to its candidates and walks them in order, retrying with backoff,
 * skipping deployments in cooldown and falling back, and stamps every result with who really answered.
 * Framework-agnostic: no Next.js, no database.
 */
export class Gateway {
  private readonly adapters = new Map<string, ModelAdapter>();
  /** Providers whose adapter a test replaced: /v1 serves them in-process too. */
  private readonly injected = new Set<string>();
  /** Each provider's config with its name, made once (not per call). */
  private readonly namedProviders = new Map<string, Served["provider"]>();
  private readonly cooldown: CooldownTracker;
  private readonly now: () => number;
  private readonly random: () => number;
  readonly config: GatewayConfig;

  constructor(config: GatewayConfig, deps: GatewayDeps = {}) {
    // Names in these maps are looked up with callers' strings: no prototype to find "toString" on.
    this.config = {
      ...config,
      providers: ownMap(config.providers),
      models: ownMap(config.models),
      prices: ownMap(config.prices),
    };
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.cooldown = new CooldownTracker(config.cooldown, this.now);
    for (const [name, provider] of Object.entries(config.providers)) {
      this.adapters.set(name, deps.adapters?.[name] ?? createAdapter(provider));
      this.namedProviders.set(name, Object.assign({}, provider, { name }));
      if (deps.adapters?.[name]) this.injected.add(name);
    }
  }

  get defaultModel(): string {
    return this.config.defaultModel;
  }

  /** Whether `alias` is one of the config's model aliases (its own, never a name on Object.prototype). */
  hasModel(alias: string): boolean {
    return own(this.config.models, alias) !== undefined;
  }

  /** The aliases, for "unknown model" messages. */
  modelAliases(): string[] {
    return Object.keys(this.config.models);
  }

  models(): ModelInfo[] {
    return Object.entries(this.config.models).map(([alias, spec]) => {
      const first = spec.candidates[0]!;
      const provider = this.config.providers[first.provider]!;
      return {
        alias,
        label: spec.label ?? alias,
        provider: first.provider,
        providerType: provider.type,
        supportsTools: spec.candidates.every(
          (c) => this.config.providers[c.provider]?.supportsTools !== false,
        ),
        supportsVision: spec.candidates.every((c) => {
          const p = this.config.providers[c.provider];
          return p !== undefined && providerSupportsVision(p);
        }),
        offline: provider.type === "offline",
        isDefault: alias === this.config.defaultModel,
      };
    });
  }

  /** One answer, not streamed. Throws a GatewayError (with its stamp) when no candidate could answer. */
  async chat(req: ChatRequest): Promise<ChatResponse> {
    const run = this.begin(req);
    let routed: Awaited<ReturnType<typeof this.route<AdapterResult>>>;
    try {
      routed = await this.route(run, async (served, clock) => {
        const adapterReq = this.adapterRequest(req, served);
        return clock.run(() => this.adapterFor(served).chat(adapterReq, clock.signal));
      });
    } catch (error) {
      const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
      e.stamp = this.stamp(run, null, null, ZERO_USAGE, null);
      throw e;
    }
    const { value, served } = routed;
    return {
      message: { role: "assistant", content: value.content, toolCalls: value.toolCalls },
      finishReason: value.finishReason,
      stamp: this.stamp(run, served, value.servedModel, value.usage, run.elapsed()),
    };
  }

  /**
   * A streamed answer. Retries and fallback happen only before the first token reaches the caller; after
   * that a failure ends the stream with an `error` event. Always ends with exactly one `done` or `error`.
   */
  async *stream(req: ChatRequest): AsyncGenerator<StreamEvent> {
    const run = this.begin(req);
    let opened: {
      served: Served;
      iterator: AsyncIterator<AdapterEvent>;
      first: AdapterEvent;
      clock: AttemptClock;
      reported?: Usage;
    };
    try {
      const routed = await this.route(
        run,
        async (served, clock) => {
          const adapterReq = this.adapterRequest(req, served);
          const iterator = clock.run(() =>
            this.adapterFor(served).stream(adapterReq, clock.signal)[Symbol.asyncIterator](),
          );
          let first = await clock.run(() => iterator.next());
          // Usage reported ahead of the answer (Anthropic's message_start) is not its first token.
          let reported: Usage | undefined;
          while (!first.done && first.value.type === "usage") {
            reported = first.value.usage;
            first = await clock.run(() => iterator.next());
          }
          if (first.done)
            throw new GatewayError("connection", "the provider's stream ended without an answer");
          clock.firstToken();
          return { iterator, first: first.value, reported };
        },
        { streaming: true },
      );
      opened = { ...routed.value, served: routed.served, clock: routed.clock! };
    } catch (error) {
      yield this.errorEvent(run, error);
      return;
    }
    for (const event of run.pendingEvents.splice(0)) yield event;

    const { served, iterator, clock } = opened;
    const key = deploymentKey(served.candidate);
    run.firstTokenAt = run.elapsed();
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
          this.cooldown.recordSuccess(key);
          yield {
            type: "done",
            response: {
              message: { role: "assistant", content, toolCalls },
              finishReason: event.finishReason,
              stamp: this.stamp(run, served, event.servedModel, event.usage, run.firstTokenAt),
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
      yield this.streamFailure(
        run,
        key,
        clock,
        req.signal,
        error,
        usageSoFar(req, content, toolCalls, reported),
        (u) => this.stamp(run, served, null, u, run.firstTokenAt),
      );
    } finally {
      // A consumer that stops reading (or Stop) ends the upstream request too.
      clock.dispose(finished ? undefined : new Error("stream closed by the caller"));
      if (!finished) {
        this.cooldown.release(key);
        await iterator.return?.().catch(() => undefined);
      }
    }
  }

  /**
   * A /v1 request in its caller's wire format: each candidate carries it whole (same format), translated (the
   * other), or is skipped when it cannot carry a field. Yields `opened` (who answers), the answer's bytes in the
   * caller's format, then exactly one `done` (usage read from the answer) or `error`. Retries and fallback as
   * for `stream`: only before the first byte reaches the caller.
   */
  async *forward(wire: WireRequest): AsyncGenerator<StreamEvent> {
    const run = this.begin({ model: wire.alias, messages: [], signal: wire.signal });
    const dropUnsupported = own(this.config.models, wire.alias)?.dropUnsupported === true;
    let opened: { served: Served; plan: Plan; upstream: UpstreamAnswer; clock?: AttemptClock };
    try {
      const routed = await this.route(
        run,
        async (served, clock) => {
          let plan: Plan;
          try {
            plan = planFor(wire, served.provider, served.candidate.model, dropUnsupported);
          } catch (error) {
            if (!(error instanceof Untranslatable)) throw error;
            const e = new GatewayError(
              "unsupported_parameter",
              `\`${error.field}\` cannot be sent to ${served.candidate.provider}/${served.candidate.model}: ${error.reason}`,
              400,
            );
            e.param = error.field;
            throw e;
          }
          const upstream = await this.openUpstream(served, plan, wire, clock);
          if (wire.stream) clock.firstToken();
          return { plan, upstream };
        },
        { streaming: wire.stream },
      );
      opened = {
        plan: routed.value.plan,
        upstream: routed.value.upstream,
        served: routed.served,
        clock: routed.clock,
      };
    } catch (error) {
      yield this.errorEvent(run, error);
      return;
    }
    for (const event of run.pendingEvents.splice(0)) yield event;
    const { served, plan, upstream, clock } = opened;
    yield {
      type: "opened",
      provider: served.candidate.provider,
      model: served.candidate.model,
      fallbackIndex: served.index,
      dropped: plan.dropped,
    };
    const stampOf = (summary: { usage?: Usage; model?: string }, usage = summary.usage ?? ZERO_USAGE) => {
      const stamp = this.stamp(run, served, summary.model ?? null, usage, run.firstTokenAt ?? run.elapsed());
      if (plan.dropped.length) stamp.droppedParams = plan.dropped;
      return stamp;
    };
    if (upstream.kind === "json") {
      yield { type: "bytes", data: upstream.text };
      yield answered(upstream.summary, stampOf(upstream.summary));
      return;
    }
    if (!clock) throw new Error("a streamed attempt without its clock");
    yield* this.relayStream(run, served, plan, upstream, clock, wire, stampOf);
  }

  /** Sends the planned request to the candidate and reads up to the start of its answer. */
  private async openUpstream(
    served: Served,
    plan: Plan,
    wire: WireRequest,
    clock: AttemptClock,
  ): Promise<UpstreamAnswer> {
    const family = PROVIDER_FAMILY[served.provider.type];
    const injected = this.injected.has(served.candidate.provider);
    // Offline and test adapters answer in-process, inside the attempt's hooks (they stop its connect timer).
    const reply =
      served.provider.type === "offline" || injected
        ? await replyOf(
            await clock.run(() =>
              inProcessResponse(
                this.adapterFor(served),
                plan.body,
                served.candidate.model,
                wire.stream,
                clock.signal,
              ),
            ),
          )
        : await nodeRequest(
            `${(served.provider.baseUrl ?? DEFAULT_BASE_URL[family]).replace(/\/+$/, "")}${UPSTREAM_PATH[plan.upstream]}`,
            {
              method: "POST",
              headers: upstreamHeaders(served.provider, plan, wire),
              body: JSON.stringify(plan.body),
              signal: clock.signal,
            },
            clock.headersArrived,
          );
    clock.headersArrived();
    if (reply.status < 200 || reply.status > 299) throw await upstreamError(reply);
    if (!wire.stream) {
      if (reply.kind !== "whole")
        throw new GatewayError("server", "the provider answered with an event stream to a JSON request", 502);
      const text = reply.body.toString("utf8");
      let answer: Json;
      try {
        answer = JSON.parse(text) as Json;
      } catch {
        throw new GatewayError("server", "the provider's answer was not JSON", 502);
      }
      const summary = summariseAnswer(plan.upstream, answer);
      if (!plan.convertJson) return { kind: "json", text, summary };
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
    const session = new StreamSession(reply.body, plan.upstream);
    // Up to the first event of the answer itself: an error before it is still the candidate's failure, and
    // another may be tried; what came before (Anthropic's message_start) is kept for the caller.
    await session.readPreamble();
    return { kind: "stream", session };
  }

  private async *relayStream(
    run: Run,
    served: Served,
    plan: Plan,
    upstream: Extract<UpstreamAnswer, { kind: "stream" }>,
    clock: AttemptClock,
    wire: WireRequest,
    stampOf: (summary: { usage?: Usage; model?: string }, usage?: Usage) => Stamp,
  ): AsyncGenerator<StreamEvent> {
    const key = deploymentKey(served.candidate);
    run.firstTokenAt = run.elapsed();
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
      this.cooldown.recordSuccess(key);
      yield answered(session.summary, stampOf(session.summary));
    } catch (error) {
      const s = session.summary;
      const estimateFrom = { messages: [{ role: "user" as const, content: JSON.stringify(wire.body) }] };
      const failure = this.streamFailure(
        run,
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
        this.cooldown.release(key);
        await session.cancel();
      }
    }
  }

  /**
   * A stream that failed after its first token: the deployment is judged, the attempt marked, and what was
   * streamed is counted (`sofar`), so the ledger has the tokens the provider will bill.
   */
  private streamFailure(
    run: Run,
    key: string,
    clock: AttemptClock,
    callerSignal: AbortSignal | undefined,
    error: unknown,
    sofar: { usage: Usage; estimated: boolean },
    stampWith: (usage: Usage) => Stamp,
  ): Extract<StreamEvent, { type: "error" }> {
    const c = classify(error, clock.signal, callerSignal);
    if (c.errorClass !== "aborted" && countsAgainstDeployment(c.errorClass)) this.cooldown.recordFailure(key);
    else this.cooldown.release(key);
    const last = run.attempts[run.attempts.length - 1];
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

  // --- routing ---------------------------------------------------------------------------------------------

  private async route<T>(
    run: Run,
    attempt: (served: Served, clock: AttemptClock) => Promise<T>,
    opts: { streaming?: boolean } = {},
  ): Promise<{ value: T; served: Served; clock?: AttemptClock }> {
    const { retry } = this.config;
    let last: Classified | undefined;
    let lastParam: string | undefined;
    let soonestRetryMs: number | undefined;
    for (let index = 0; index < run.candidates.length; index++) {
      const candidate = run.candidates[index]!;
      const key = deploymentKey(candidate);
      const gate = this.cooldown.tryAcquire(key);
      if (!gate.ok) {
        run.attempts.push({
          provider: candidate.provider,
          model: candidate.model,
          outcome: "skipped",
          durationMs: 0,
        });
        soonestRetryMs = Math.min(soonestRetryMs ?? Number.POSITIVE_INFINITY, gate.retryInMs);
        continue;
      }
      const served = this.served(index, candidate, run.req);
      for (let retryNo = 0; ; retryNo++) {
        const started = this.now();
        const clock = new AttemptClock(this.config.timeouts, run.req.signal, opts.streaming ?? false);
        const record: Attempt = {
          provider: candidate.provider,
          model: candidate.model,
          outcome: "ok",
          durationMs: 0,
        };
        run.attempts.push(record);
        try {
          const value = await attempt(served, clock);
          record.durationMs = this.now() - started;
          // A stream's deployment is judged when the stream ends; a whole answer now.
          if (!opts.streaming) {
            this.cooldown.recordSuccess(key);
            clock.dispose();
          }
          return { value, served, clock: opts.streaming ? clock : undefined };
        } catch (error) {
          const c = classify(error, clock.signal, run.req.signal);
          clock.dispose(new Error("attempt failed"));
          lastParam = error instanceof GatewayError ? error.param : undefined;
          Object.assign(record, {
            // A candidate that cannot carry the request was never asked: skipped, with its reason.
            outcome: c.errorClass === "unsupported_parameter" ? "skipped" : "error",
            errorClass: c.errorClass,
            status: c.status,
            durationMs: this.now() - started,
          });
          if (c.errorClass === "aborted") {
            this.cooldown.release(key);
            throw new GatewayError("aborted", "the request was stopped");
          }
          if (countsAgainstDeployment(c.errorClass)) this.cooldown.recordFailure(key);
          else this.cooldown.release(key);
          last = c;
          const action = decide(c.errorClass);
          if (action === "fail") throw new GatewayError(c.errorClass, c.message, c.status);
          if (action === "retry" && retryNo < retry.maxRetries && !this.cooldown.isCoolingDown(key)) {
            try {
              await sleep(this.backoff(retryNo, c.retryAfterMs), run.req.signal);
            } catch {
              throw new GatewayError("aborted", "the request was stopped");
            }
            continue;
          }
          break;
        }
      }
      const next = run.candidates[index + 1];
      if (next && last) {
        run.pendingEvents.push({
          type: "fallback",
          from: { provider: candidate.provider, model: candidate.model },
          errorClass: last.errorClass,
          toIndex: index + 1,
          ...(last.errorClass === "unsupported_parameter" ? { reason: last.message } : {}),
        });
      }
    }
    if (!last) {
      throw new GatewayError(
        "no_candidate",
        `every deployment of "${run.alias}" is cooling down after failures; try again shortly`,
        503,
        undefined,
        soonestRetryMs,
      );
    }
    if (last.errorClass === "unsupported_parameter") {
      const e = new GatewayError(
        "unsupported_parameter",
        `${last.message} (model \`${run.alias}\`; set "dropUnsupported": true on the alias to drop it instead)`,
        400,
      );
      e.param = lastParam;
      throw e;
    }
    throw new GatewayError(
      last.errorClass,
      `no deployment of "${run.alias}" could answer: ${last.message}`,
      last.status,
    );
  }

  /** Exponential backoff with jitter; a provider's Retry-After wins, up to the cap. */
  private backoff(retryNo: number, retryAfterMs: number | undefined): number {
    const { baseDelayMs, maxDelayMs, maxRetryAfterMs } = this.config.retry;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxRetryAfterMs);
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** retryNo);
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  // --- helpers ---------------------------------------------------------------------------------------------

  private begin(req: ChatRequest): Run {
    const alias = req.model ?? this.config.defaultModel;
    const spec = own(this.config.models, alias);
    if (!spec) {
      throw new GatewayError(
        "unknown_model",
        `unknown model "${alias}"; available: ${this.modelAliases().join(", ")}`,
        404,
      );
    }
    const started = this.now();
    return {
      req,
      alias,
      candidates: spec.candidates,
      attempts: [],
      pendingEvents: [],
      firstTokenAt: null,
      elapsed: () => this.now() - started,
    };
  }

  private served(index: number, candidate: Candidate, req: ChatRequest): Served {
    const provider = this.namedProviders.get(candidate.provider)!;
    const toolsDropped = !!req.tools?.length && provider.supportsTools === false;
    return { index, candidate, provider, toolsDropped };
  }

  private adapterFor(served: Served): ModelAdapter {
    return this.adapters.get(served.candidate.provider)!;
  }

  private adapterRequest(req: ChatRequest, served: Served): AdapterRequest {
    return {
      model: served.candidate.model,
      messages: req.messages,
      tools: served.toolsDropped ? undefined : req.tools,
      toolChoice: served.toolsDropped ? undefined : req.toolChoice,
      temperature: req.temperature,
      maxTokens: req.maxTokens,
    };
  }

  private stamp(
    run: Run,
    served: Served | null,
    servedModel: string | null,
    usage: AdapterResult["usage"],
    firstTokenMs: number | null,
  ): Stamp {
    const model = servedModel ?? served?.candidate.model ?? null;
    const price =
      served && model
        ? findServedPrice(
            this.config.prices,
            served.provider,
            model,
            served.candidate.model,
            new Date(this.now()),
          )
        : undefined;
    return {
      requestedModel: run.alias,
      servedProvider: served?.candidate.provider ?? null,
      servedAdapter: served?.provider.type ?? null,
      servedModel: model,
      fallbackIndex: served?.index ?? null,
      attempts: run.attempts,
      usage,
      // Nothing served (every candidate failed before answering), or the offline model: nothing billed.
      cost: price ? costOf(usage, price) : !served || served.provider.type === "offline" ? "0" : null,
      costStatus: price || !served || served.provider.type === "offline" ? "priced" : "unpriced",
      timeToFirstTokenMs: firstTokenMs,
      latencyMs: run.elapsed(),
      toolsDropped: served?.toolsDropped ?? false,
    };
  }

  private errorEvent(run: Run, error: unknown): StreamEvent {
    const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
    return {
      type: "error",
      error: {
        class: e.errorClass,
        message: e.message,
        status: e.status,
        ...(e.param ? { param: e.param } : {}),
      },
      stamp: this.stamp(run, null, null, ZERO_USAGE, null),
    };
  }
}

type Run = {
  req: ChatRequest;
  alias: string;
  candidates: Candidate[];
  attempts: Attempt[];
  /** Fallback notices, delivered to a stream's caller once it starts. */
  pendingEvents: StreamEvent[];
  firstTokenAt: number | null;
  elapsed(): number;
};

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

const deploymentKey = (c: Candidate) => `${c.provider}/${c.model}`;

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

function createAdapter(provider: GatewayConfig["providers"][string]): ModelAdapter {
  switch (provider.type) {
    case "openai":
      return new OpenAIAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl });
    case "openai-compatible":
      return new OpenAIAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl, compatible: true });
    case "anthropic":
      return new AnthropicAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl });
    case "offline":
      return new OfflineAdapter({ chunkDelayMs: provider.chunkDelayMs });
  }
}

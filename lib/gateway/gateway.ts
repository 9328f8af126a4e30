import type { AdapterResult, ModelAdapter } from "./adapters/adapter";
import { AnthropicAdapter } from "./adapters/anthropic";
import { azureOpenAIAdapter } from "./adapters/azure-openai";
import { EntraTokenSource } from "./adapters/entra";
import { nativeAdapter } from "./adapters/native";
import { OfflineAdapter } from "./adapters/offline";
import { OpenAIAdapter } from "./adapters/openai";
import { adapterRequestFor, type CallContext } from "./call";
import { type GatewayConfig, ownEntry, ownMap, providerSupportsVision } from "./config";
import type { CooldownTracker } from "./cooldown";
import { GatewayError } from "./errors";
import type { WireRequest } from "./forward/plan";
import { forwardWireRequest } from "./forward/relay";
import { createNative, type NativeProvider } from "./native";
import { costOf, findServedPrice } from "./pricing";
import { credentialName, deploymentKey, type GatewayCall, Router, type ServingCandidate } from "./routing";
import { modelKey } from "./strategies";
import { streamChat } from "./streaming";
import {
  type ChatRequest,
  type ChatResponse,
  type ModelInfo,
  type Stamp,
  type StreamEvent,
  ZERO_USAGE,
} from "./types";

/** One candidate of one alias on the routing page (a provider with several keys: one row a key). */
export type RouteRow = {
  /** The alias's place in the config, the candidate's in the alias, and the key's, from 1: `2-1`, `2-1-3`. */
  id: string;
  alias: string;
  label: string;
  strategy: string;
  /** Its place in the alias's list, from 1. */
  position: number;
  provider: string;
  providerType: string;
  model: string;
  credential: string | null;
  weight: number | null;
  /** cooling: skipped until `coolingUntil` (the breaker is open); half-open: the next call is its probe. */
  state: "healthy" | "cooling" | "half-open";
  coolingUntil: string | null;
  /** The moving average of the time until an answer started, on this instance; null before any call. */
  latencyMs: number | null;
  /** Tries in the last minute on this instance, and the share of them that failed (the provider's fault), in %. */
  calls: number;
  errorRate: number | null;
};

export type GatewayDeps = {
  now?: () => number;
  random?: () => number;
  /** Replace the adapter of a provider by name (tests). */
  adapters?: Record<string, ModelAdapter>;
};

/**
 * The model gateway: resolves an alias to its candidates and walks them in order, retrying with backoff,
 * skipping deployments in cooldown and falling back (routing.ts), and stamps every result with who really
 * answered. Answers come whole (`chat`), streamed from the adapters (`stream`, streaming.ts), or in the
 * caller's own wire format (`forward`, forward/relay.ts). Framework-agnostic: no Next.js, no database.
 */
export class Gateway {
  private readonly adapters = new Map<string, ModelAdapter>();
  /** Providers whose adapter a test replaced: /v1 serves them in-process too. */
  private readonly injected = new Set<string>();
  /** Entra ID tokens of the providers that sign in with one (Azure OpenAI), shared by the SDK and /v1 paths. */
  private readonly tokens = new Map<string, EntraTokenSource>();
  /** Native APIs (Bedrock) by credential name, shared by the drawer's adapter and /v1. */
  private readonly natives = new Map<string, NativeProvider>();
  private healthTimer: ReturnType<typeof setInterval> | undefined;
  private readonly probing = new Set<string>();
  private readonly router: Router;
  private readonly calls: CallContext;
  private readonly now: () => number;
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
    this.router = new Router(this.config, this.now, deps.random ?? Math.random);
    for (const [name, provider] of Object.entries(config.providers)) {
      if (provider.entra) this.tokens.set(name, new EntraTokenSource(provider.entra, this.now));
      // A provider with several keys: an SDK client for each (its calls always name one), else one.
      const native = createNative(provider);
      if (native) this.natives.set(name, native);
      if (!provider.apiKeys)
        this.adapters.set(
          name,
          deps.adapters?.[name] ??
            (native ? nativeAdapter(provider.type, native) : createAdapter(provider, this.tokens.get(name))),
        );
      for (const [i, apiKey] of (provider.apiKeys ?? []).entries())
        this.adapters.set(
          `${name}#${i}`,
          deps.adapters?.[name] ?? createAdapter({ ...provider, apiKey }, undefined),
        );
      if (deps.adapters?.[name]) this.injected.add(name);
    }
    this.calls = {
      config: this.config,
      router: this.router,
      adapterFor: (serving) => this.adapterFor(serving),
      bearerToken: (serving, signal) => this.tokens.get(serving.candidate.provider)?.token(signal),
      native: (serving) => this.natives.get(credentialName(serving.candidate)),
      answersInProcess: (serving) =>
        serving.provider.type === "offline" || this.injected.has(serving.candidate.provider),
      stamp: (call, serving, servedModel, usage, firstTokenMs) =>
        this.stamp(call, serving, servedModel, usage, firstTokenMs),
    };
  }

  /**
   * Active health checks (`cooldown.healthCheckMs`): each deployment cooling down gets a one-token request that
   * often, and comes back as soon as one answers, instead of after the whole cooldown. Off unless configured;
   * `close` stops them. The probes' tokens are the platform's, on no tenant's ledger.
   */
  startHealthChecks(): void {
    const every = this.config.cooldown.healthCheckMs;
    if (!every || this.healthTimer) return;
    this.healthTimer = setInterval(() => void this.checkHealth(), every);
    this.healthTimer.unref();
  }

  /** One round of health checks: a probe to each deployment cooling down (one at a time per deployment). */
  async checkHealth(): Promise<void> {
    await Promise.all(
      [...this.router.deployments].map(async ([key, candidate]) => {
        const provider = this.router.providerOf(candidate);
        if (!this.router.cooldown.isCoolingDown(key) || this.probing.has(key) || provider.type === "offline")
          return;
        this.probing.add(key);
        const started = this.now();
        try {
          await this.adapters
            .get(credentialName(candidate))!
            .chat(
              { model: candidate.model, messages: [{ role: "user", content: "ping" }], maxTokens: 1 },
              AbortSignal.timeout(this.config.timeouts.totalMs),
            );
          this.router.cooldown.recordSuccess(key, started);
        } catch {
          // Still failing: it stays cooled down until its time, or the next probe that answers.
        } finally {
          this.probing.delete(key);
        }
      }),
    );
  }

  /**
   * Every alias's candidates as this instance routes them: the strategy, each deployment's state (healthy,
   * cooling down until when, or let through for its one probe), its latency lately and its recent error rate.
   */
  routingTable(): RouteRow[] {
    const rows: RouteRow[] = [];
    for (const [aliasIndex, [alias, spec]] of Object.entries(this.config.models).entries()) {
      spec.candidates.forEach((candidate, position) => {
        const keys = this.config.providers[candidate.provider]?.apiKeys;
        const credentials = keys ? keys.map((_, credential) => credential) : [undefined];
        for (const credential of credentials) {
          const key = deploymentKey({ ...candidate, credential });
          const health = this.router.cooldown.state(key);
          const tries = this.router.stats.outcomesLastMinute(key);
          const latency = this.router.stats.meanLatency(modelKey(candidate));
          rows.push({
            // Places, not names: an alias may hold any character, a link's id should not need escaping.
            id: `${aliasIndex + 1}-${position + 1}${credential === undefined ? "" : `-${credential + 1}`}`,
            alias,
            label: spec.label ?? alias,
            strategy: spec.strategy ?? "fallback",
            position: position + 1,
            provider: candidate.provider,
            providerType: this.config.providers[candidate.provider]?.type ?? "openai",
            model: candidate.model,
            credential: credential === undefined ? null : `key ${credential + 1} of ${keys!.length}`,
            weight: candidate.weight ?? null,
            state: health.coolUntil ? "cooling" : health.halfOpen ? "half-open" : "healthy",
            coolingUntil: health.coolUntil ? new Date(health.coolUntil).toISOString() : null,
            latencyMs: latency === undefined ? null : Math.round(latency),
            calls: tries.calls,
            errorRate: tries.calls ? Math.round((tries.failures / tries.calls) * 1000) / 10 : null,
          });
        }
      });
    }
    return rows;
  }

  /** Stops the health checks. */
  close(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = undefined;
  }

  /** The deployments' health (cooldowns): the composition root shares its changes with the other instances. */
  get cooldowns(): CooldownTracker {
    return this.router.cooldown;
  }

  get defaultModel(): string {
    return this.config.defaultModel;
  }

  /** Whether `alias` is one of the config's model aliases (its own, never a name on Object.prototype). */
  hasModel(alias: string): boolean {
    return ownEntry(this.config.models, alias) !== undefined;
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
    const call = this.router.startCall(req);
    let routed: { value: AdapterResult; serving: ServingCandidate };
    try {
      routed = await this.router.walkCandidates(call, async (serving, clock) => {
        const adapterReq = adapterRequestFor(req, serving);
        return clock.run(() => this.adapterFor(serving).chat(adapterReq, clock.signal));
      });
    } catch (error) {
      const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
      e.stamp = this.stamp(call, null, null, ZERO_USAGE, null);
      throw e;
    }
    const { value, serving } = routed;
    const stamp = this.stamp(call, serving, value.servedModel, value.usage, call.elapsed());
    if (value.contentFilter) stamp.contentFilter = value.contentFilter;
    return {
      message: { role: "assistant", content: value.content, toolCalls: value.toolCalls },
      finishReason: value.finishReason,
      stamp,
    };
  }

  /**
   * A streamed answer. Retries and fallback happen only before the first token reaches the caller; after
   * that a failure ends the stream with an `error` event. Always ends with exactly one `done` or `error`.
   */
  stream(req: ChatRequest): AsyncGenerator<StreamEvent> {
    return streamChat(this.calls, req);
  }

  /**
   * A /v1 request in its caller's wire format, carried whole, translated, or skipped per candidate; see
   * `forwardWireRequest`. Yields `opened`, the answer's bytes, then exactly one `done` or `error`.
   */
  forward(wire: WireRequest): AsyncGenerator<StreamEvent> {
    return forwardWireRequest(this.calls, wire);
  }

  private adapterFor(serving: ServingCandidate): ModelAdapter {
    return this.adapters.get(credentialName(serving.candidate))!;
  }

  /** Who answered the call, with what usage, at what cost and latency. */
  private stamp(
    call: GatewayCall,
    serving: ServingCandidate | null,
    servedModel: string | null,
    usage: AdapterResult["usage"],
    firstTokenMs: number | null,
  ): Stamp {
    const model = servedModel ?? serving?.candidate.model ?? null;
    const strategy = call.spec.strategy;
    if (serving && strategy === "usage-based")
      this.router.stats.recordUsage(
        modelKey(serving.candidate),
        usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens + usage.outputTokens,
      );
    const price =
      serving && model
        ? findServedPrice(
            this.config.prices,
            serving.provider,
            model,
            serving.candidate.model,
            new Date(this.now()),
          )
        : undefined;
    const stamp: Stamp = {
      requestedModel: call.alias,
      servedProvider: serving?.candidate.provider ?? null,
      servedAdapter: serving?.provider.type ?? null,
      servedModel: model,
      fallbackIndex: serving?.index ?? null,
      attempts: call.attempts,
      usage,
      // Nothing served (every candidate failed before answering), or the offline model: nothing billed.
      cost: price ? costOf(usage, price) : !serving || serving.provider.type === "offline" ? "0" : null,
      costStatus: price || !serving || serving.provider.type === "offline" ? "priced" : "unpriced",
      timeToFirstTokenMs: firstTokenMs,
      latencyMs: call.elapsed(),
      toolsDropped: serving?.toolsDropped ?? false,
    };
    if (strategy && strategy !== "fallback") stamp.strategy = strategy;
    return stamp;
  }
}

function createAdapter(
  provider: GatewayConfig["providers"][string],
  tokens: EntraTokenSource | undefined,
): ModelAdapter {
  switch (provider.type) {
    case "openai":
      return new OpenAIAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl });
    case "openai-compatible":
      return new OpenAIAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl, compatible: true });
    case "azure-openai":
      return azureOpenAIAdapter(provider, tokens);
    case "anthropic":
      return new AnthropicAdapter({ apiKey: provider.apiKey, baseUrl: provider.baseUrl });
    case "offline":
      return new OfflineAdapter({ chunkDelayMs: provider.chunkDelayMs });
    case "bedrock":
    case "gemini":
    case "vertex":
      throw new Error(`${provider.type} is served by its native adapter`);
  }
}

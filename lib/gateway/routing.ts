import { AttemptClock } from "./attempt";
import {
  type AliasConfig,
  type Candidate,
  type GatewayConfig,
  ownEntry,
  type ResolvedProvider,
} from "./config";
import { CooldownTracker } from "./cooldown";
import { type Classified, classify, countsAgainstDeployment, decide, GatewayError } from "./errors";
import { sleep } from "./sleep";
import { DeploymentStats, modelKey, orderCandidates } from "./strategies";
import type { Attempt, ChatRequest, StreamEvent } from "./types";

/** One call through the gateway: the alias it named, that alias's candidates, and what happened so far. */
export type GatewayCall = {
  req: ChatRequest;
  alias: string;
  /** The alias's config (its strategy, its translation policy). */
  spec: AliasConfig;
  /** The alias's candidates in the order this call tries them (its strategy's choice first). */
  candidates: Candidate[];
  attempts: Attempt[];
  /** Fallback notices, delivered to a stream's caller once it starts. */
  pendingEvents: StreamEvent[];
  firstTokenAt: number | null;
  elapsed(): number;
};

/** The candidate an attempt is sent to, with its provider's config and whether the request's tools were dropped. */
export type ServingCandidate = {
  index: number;
  candidate: Candidate;
  provider: ResolvedProvider & { name: string };
  toolsDropped: boolean;
};

/** The cooldown key of a deployment: one provider's one model (with one of its keys, when it has several). */
export const deploymentKey = (c: Candidate) =>
  c.credential === undefined ? modelKey(c) : `${modelKey(c)}#${c.credential}`;

/** Two candidates of the same provider and model (two keys of it, when its provider has several). */
const sameDeployment = (a: Candidate, b: Candidate | undefined) =>
  b !== undefined && a.provider === b.provider && a.model === b.model;

/** The adapter and provider entry of a candidate: its provider's, or its credential's when it has several keys. */
export const credentialName = (c: Candidate) =>
  c.credential === undefined ? c.provider : `${c.provider}#${c.credential}`;

/**
 * Routing: resolves a model alias to its candidates and walks them in order, skipping deployments in cooldown,
 * retrying with backoff and falling back. Owns the per-deployment health (cooldown) of this process, which the
 * cluster bus shares with the other instances (lib/cluster/cooldowns.ts).
 */
export class Router {
  readonly cooldown: CooldownTracker;
  /** What this process measured of each deployment, for the latency and usage strategies. */
  readonly stats: DeploymentStats;
  /** Each provider's config with its name (and each of its keys', by credentialName), made once (not per call). */
  private readonly namedProviders = new Map<string, ServingCandidate["provider"]>();
  /** Every deployment of every alias (each key of a multi-key provider apart), by its cooldown key. */
  readonly deployments = new Map<string, Candidate>();
  /** The aliases with a candidate whose provider has several keys. */
  private readonly severalKeys = new Set<string>();
  /** Where each multi-key deployment's next call starts among its keys. */
  private readonly rotation = new Map<string, number>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly now: () => number,
    private readonly random: () => number,
  ) {
    for (const [alias, spec] of Object.entries(config.models))
      for (const c of spec.candidates) {
        if (config.providers[c.provider]?.apiKeys) this.severalKeys.add(alias);
        for (const d of this.withCredentials(c)) this.deployments.set(deploymentKey(d), d);
      }
    this.cooldown = new CooldownTracker(config.cooldown, now, { keys: [...this.deployments.keys()] });
    this.stats = new DeploymentStats(now);
    for (const [name, provider] of Object.entries(config.providers)) {
      this.namedProviders.set(name, Object.assign({}, provider, { name }));
      for (const [i, apiKey] of (provider.apiKeys ?? []).entries())
        this.namedProviders.set(`${name}#${i}`, Object.assign({}, provider, { name, apiKey }));
    }
  }

  /**
   * Starts a call: the alias it names (or the default) and that alias's candidates in the order its strategy
   * gives; unknown aliases are a 404. `size` estimates the request for least-cost (by default from its messages).
   */
  startCall(req: ChatRequest, size?: () => { inputTokens: number; outputTokens: number }): GatewayCall {
    const alias = req.model ?? this.config.defaultModel;
    const spec = ownEntry(this.config.models, alias);
    if (!spec) {
      throw new GatewayError(
        "unknown_model",
        `unknown model "${alias}"; available: ${Object.keys(this.config.models).join(", ")}`,
        404,
      );
    }
    const started = this.now();
    // Plain fallback (the common case) costs nothing here: no context for a strategy, no keys to rotate.
    const ordered =
      spec.strategy && spec.strategy !== "fallback"
        ? orderCandidates(spec, {
            config: this.config,
            stats: this.stats,
            random: this.random,
            now: this.now,
            coolingDown: (c) => this.cooldown.isCoolingDown(deploymentKey(c)),
            size: size ?? (() => sizeOf(req)),
          })
        : spec.candidates;
    const candidates = this.severalKeys.has(alias) ? ordered.flatMap((c) => this.rotated(c)) : ordered;
    return {
      req,
      alias,
      spec,
      candidates,
      attempts: [],
      pendingEvents: [],
      firstTokenAt: null,
      elapsed: () => this.now() - started,
    };
  }

  /**
   * Walks the call's candidates until one attempt succeeds: a deployment in cooldown is skipped, a retryable
   * failure is retried with backoff, any other moves on to the next candidate (a `fallback` notice). Throws a
   * GatewayError for the last failure when none answers. A stream's deployment is judged when its stream ends
   * (the caller gets the attempt's clock to go on with); a whole answer's now.
   */
  async walkCandidates<T>(
    call: GatewayCall,
    attempt: (serving: ServingCandidate, clock: AttemptClock) => Promise<T>,
    opts: { streaming?: boolean } = {},
  ): Promise<{ value: T; serving: ServingCandidate; clock?: AttemptClock }> {
    const { retry } = this.config;
    let last: Classified | undefined;
    let lastParam: string | undefined;
    let soonestRetryMs: number | undefined;
    for (let index = 0; index < call.candidates.length; index++) {
      const candidate = call.candidates[index]!;
      const key = deploymentKey(candidate);
      const gate = this.cooldown.tryAcquire(key);
      if (!gate.ok) {
        call.attempts.push({
          provider: candidate.provider,
          model: candidate.model,
          outcome: "skipped",
          durationMs: 0,
        });
        soonestRetryMs = Math.min(soonestRetryMs ?? Number.POSITIVE_INFINITY, gate.retryInMs);
        continue;
      }
      const anotherKeyNext =
        candidate.credential !== undefined && sameDeployment(candidate, call.candidates[index + 1]);
      const serving = this.servingCandidate(index, candidate, call.req);
      for (let retryNo = 0; ; retryNo++) {
        const started = this.now();
        const clock = new AttemptClock(
          this.config.timeouts,
          call.req.signal,
          opts.streaming ?? false,
          started,
        );
        const record: Attempt = {
          provider: candidate.provider,
          model: candidate.model,
          outcome: "ok",
          durationMs: 0,
        };
        call.attempts.push(record);
        try {
          const value = await attempt(serving, clock);
          record.durationMs = this.now() - started;
          // Until the answer started: a stream's first event, a whole answer's end.
          this.stats.recordLatency(
            candidate.credential === undefined ? key : modelKey(candidate),
            record.durationMs,
          );
          this.stats.recordOutcome(key, true);
          // A stream's deployment is judged when the stream ends; a whole answer now.
          if (!opts.streaming) {
            this.cooldown.recordSuccess(key, started);
            clock.dispose();
          }
          return { value, serving, clock: opts.streaming ? clock : undefined };
        } catch (error) {
          const c = classify(error, clock.signal, call.req.signal);
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
          if (countsAgainstDeployment(c.errorClass)) {
            this.cooldown.recordFailure(key);
            this.stats.recordOutcome(key, false);
          } else this.cooldown.release(key);
          last = c;
          // Another key of the same deployment comes next: a key that is refused or rate-limited is left at once.
          const keyRefused = anotherKeyNext && (c.errorClass === "rate_limited" || c.errorClass === "auth");
          const action = keyRefused ? "next" : decide(c.errorClass);
          if (action === "fail") {
            const failed = new GatewayError(c.errorClass, c.message, c.status);
            if (c.contentFilter) failed.contentFilter = c.contentFilter;
            throw failed;
          }
          if (action === "retry" && retryNo < retry.maxRetries && !this.cooldown.isCoolingDown(key)) {
            try {
              await sleep(this.backoff(retryNo, c.retryAfterMs), call.req.signal);
            } catch {
              throw new GatewayError("aborted", "the request was stopped");
            }
            continue;
          }
          break;
        }
      }
      const next = call.candidates[index + 1];
      if (next && last && !anotherKeyNext) {
        call.pendingEvents.push({
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
        `every deployment of "${call.alias}" is cooling down after failures; try again shortly`,
        503,
        undefined,
        soonestRetryMs,
      );
    }
    if (last.errorClass === "unsupported_parameter") {
      const e = new GatewayError(
        "unsupported_parameter",
        `${last.message} (model \`${call.alias}\`; set "dropUnsupported": true on the alias to drop it instead)`,
        400,
      );
      e.param = lastParam;
      throw e;
    }
    throw new GatewayError(
      last.errorClass,
      `no deployment of "${call.alias}" could answer: ${last.message}`,
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

  /** A candidate once per key of its provider (one with one key: itself). */
  private withCredentials(c: Candidate): Candidate[] {
    const keys = this.config.providers[c.provider]?.apiKeys;
    return keys ? keys.map((_, credential) => ({ ...c, credential })) : [c];
  }

  /** A multi-key candidate's keys, starting at the next in turn, so calls spread over every key. */
  private rotated(c: Candidate): Candidate[] {
    const all = this.withCredentials(c);
    if (all.length < 2) return all;
    const key = deploymentKey(c);
    const start = (this.rotation.get(key) ?? 0) % all.length;
    this.rotation.set(key, start + 1);
    return [...all.slice(start), ...all.slice(0, start)];
  }

  /** The provider (with the key) a deployment is reached with. */
  providerOf(candidate: Candidate): ServingCandidate["provider"] {
    return this.namedProviders.get(credentialName(candidate))!;
  }

  private servingCandidate(index: number, candidate: Candidate, req: ChatRequest): ServingCandidate {
    const provider = this.namedProviders.get(credentialName(candidate))!;
    const toolsDropped = !!req.tools?.length && provider.supportsTools === false;
    return { index, candidate, provider, toolsDropped };
  }
}

/** A chat request's size for least-cost: about four characters a token, and its output ceiling (else 1,000). */
function sizeOf(req: ChatRequest): { inputTokens: number; outputTokens: number } {
  let chars = 0;
  for (const m of req.messages) chars += m.content.length;
  return { inputTokens: Math.ceil(chars / 4), outputTokens: req.maxTokens ?? 1_000 };
}

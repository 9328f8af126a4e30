import "server-only";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ReadStats } from "@/db/read-replica";
import { dependencyRefusals, dependencyStates } from "@/lib/core/errors/dependency";
import { batchers, governanceFailures } from "@/lib/core/errors/failures";

/** Seconds: from a fast cached answer to a long agent turn. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 2, 3, 5, 10, 30];

const CALL = ["tenant", "alias", "provider", "source"] as const;

/**
 * The process's Prometheus metrics, in one registry the composition root holds (server/container), all named
 * `tollgate_…`. Turns feed them as their ledger rows close (see TelemetryObserver); the governance failure
 * counters and the ledger backlog are read when scraped; Node's default metrics (event-loop lag, heap, CPU)
 * come with the same prefix.
 *
 * Labels: `tenant` is the tenant id (tenants are bounded per deployment, like aliases and providers); the
 * histograms leave it out (per alias and provider only) so a scrape stays small with many tenants.
 */
export class TollgateMetrics {
  readonly registry = new Registry();
  readonly requests = this.counter("tollgate_requests_total", "Turns and API calls, by how they ended", [
    ...CALL,
    "status",
  ]);
  readonly errors = this.counter("tollgate_request_errors_total", "Failed turns and calls, by error class", [
    "tenant",
    "alias",
    "source",
    "error_class",
  ]);
  readonly tokens = this.counter("tollgate_tokens_total", "Tokens, by price class", [...CALL, "class"]);
  readonly mediaUnits = this.counter(
    "tollgate_media_units_total",
    "Images made, seconds of audio heard and characters spoken by /v1 images and audio calls",
    [...CALL, "unit"],
  );
  readonly guardrailActions = this.counter(
    "tollgate_guardrail_actions_total",
    "What tenants' guardrail rules did: blocked, redacted, warned, logged, or check_failed (a check that could not run)",
    ["tenant", "source", "action"],
  );
  readonly cost = this.counter(
    "tollgate_cost_usd_total",
    "Spend in USD (a float for metrics; the ledger's exact decimal is the record)",
    CALL,
  );
  readonly unpriced = this.counter(
    "tollgate_unpriced_requests_total",
    "Calls whose served model has no price (their cost is unknown, not 0)",
    CALL,
  );
  readonly latency = new Histogram({
    name: "tollgate_request_duration_seconds",
    help: "Latency of turns and API calls",
    labelNames: ["alias", "provider", "source", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly firstToken = new Histogram({
    name: "tollgate_time_to_first_token_seconds",
    help: "Time to the first token of the answer",
    labelNames: ["alias", "provider", "source"],
    buckets: FIRST_TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly fallbacks = this.counter("tollgate_fallbacks_total", "Fallbacks to the alias's next candidate", [
    "tenant",
    "alias",
    "source",
  ]);
  readonly retries = this.counter("tollgate_retries_total", "Retries of the same deployment", [
    "provider",
    "model",
  ]);
  readonly cooldownSkips = this.counter(
    "tollgate_cooldown_skips_total",
    "Candidates passed over because their deployment was cooling down after failures",
    ["provider", "model"],
  );
  readonly attemptErrors = this.counter(
    "tollgate_upstream_errors_total",
    "Failed attempts at a provider, by error class",
    ["provider", "model", "error_class"],
  );
  readonly rateLimitRefusals = this.counter(
    "tollgate_rate_limit_refusals_total",
    "Calls refused by a rate limit",
    ["tenant", "source"],
  );
  readonly budgetRefusals = this.counter(
    "tollgate_budget_refusals_total",
    "Calls refused by a hard budget or a run ceiling (reason: budget_hard, budget_unpriced_model, run_ceiling)",
    ["tenant", "source", "reason"],
  );
  readonly cacheHits = this.counter(
    "tollgate_cache_hits_total",
    "Model calls answered from the response cache",
    ["tenant", "alias", "source"],
  );
  readonly toolCalls = this.counter("tollgate_tool_calls_total", "Tool executions, by outcome", [
    "tenant",
    "tool",
    "outcome",
  ]);
  readonly alertDeliveries = this.counter(
    "tollgate_alert_deliveries_total",
    "Tries to deliver a fired alert, by channel kind and outcome (delivered, retry, dead)",
    ["kind", "outcome"],
  );

  constructor(options: { defaultMetrics?: boolean; reads?: () => ReadStats } = {}) {
    const reads = options.reads;
    if (reads) {
      new Counter({
        name: "tollgate_read_fallbacks_total",
        help: "Reads meant for the read replica that went to the primary (reason: unreachable, lagging)",
        labelNames: ["reason"],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const [reason, n] of Object.entries(reads().fallbacks)) this.inc({ reason }, n);
        },
      });
      new Gauge({
        name: "tollgate_read_replica_lag_seconds",
        help: "How far the read replica was behind the primary at its last check",
        registers: [this.registry],
        collect() {
          this.set(reads().lagSeconds ?? 0);
        },
      });
      new Gauge({
        name: "tollgate_read_replica_in_use",
        help: "1 while reads go to the read replica, 0 while they fall back to the primary",
        registers: [this.registry],
        collect() {
          this.set(reads().usingReplica ? 1 : 0);
        },
      });
    }
    // Read when scraped, from the process's counters (lib/core/failures), which every route bundle shares.
    new Counter({
      name: "tollgate_governance_write_failures_total",
      help: "Ledger, audit, conversation and pipeline writes that failed (the replies went out)",
      labelNames: ["kind"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [kind, n] of Object.entries(governanceFailures)) this.inc({ kind }, n);
      },
    });
    new Gauge({
      name: "tollgate_ledger_queue_rows",
      help: "Ended calls whose ledger rows wait to be written, per batching recorder",
      labelNames: ["batcher"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const b of batchers()) this.set({ batcher: b.name }, b.stats().rowsWaiting);
      },
    });
    new Gauge({
      name: "tollgate_ledger_oldest_age_seconds",
      help: "Age of the oldest ledger row waiting to be written, per batching recorder",
      labelNames: ["batcher"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const b of batchers()) this.set({ batcher: b.name }, b.stats().oldestAgeMs / 1000);
      },
    });
    new Gauge({
      name: "tollgate_ledger_calls_refused",
      help: "API calls refused (503) because the ledger backlog stayed full, since start",
      labelNames: ["batcher"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const b of batchers()) this.set({ batcher: b.name }, b.stats().callsRefused);
      },
    });
    new Gauge({
      name: "tollgate_dependency_up",
      help: "1 when the dependency (database, redis) answered its last check, 0 when it did not",
      labelNames: ["dependency"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [dependency, up] of dependencyStates()) this.set({ dependency }, up ? 1 : 0);
      },
    });
    new Counter({
      name: "tollgate_dependency_refusals_total",
      help: "Requests answered 503 because a dependency was away, by dependency and cause (an error code)",
      labelNames: ["dependency", "cause"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const r of dependencyRefusals()) this.inc({ dependency: r.dependency, cause: r.cause }, r.count);
      },
    });
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: "tollgate_" });
  }

  /** The text exposition format, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }
}

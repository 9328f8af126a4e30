import "server-only";
import { type Database, type DatabaseHandle, openAppDatabase } from "@/db";
import { openReadRouter, type ReadRouter, type ReadStats, readRouterOptionsFromEnv } from "@/db/read-replica";
import { PageCatalog } from "@/features/admin-tables/server";
import { AlertSender, transportsFromEnv } from "@/features/alerts/server/delivery";
import { queueScheduleResult } from "@/features/alerts/server/schedule-results";
import { demoFromEnv, demoPreparation } from "@/features/demo/server";
import { ordersToolSet } from "@/features/demo/server/orders-tools";
import { SchemaContext } from "@/features/drawer/server/copilot/schema-context";
import { governanceToolSet } from "@/features/drawer/server/copilot/tools";
import { EvalRunner } from "@/features/evals/server/runner";
import { createTenantGuardrailEngine, loadGuardrailPolicy } from "@/features/guardrails/server";
import { createMcp, type Mcp } from "@/features/mcp/server/client";
import { createMcpHandler } from "@/features/mcp/server/endpoint/handler";
import { skillLibrary } from "@/features/prompts/server/skills";
import { createV1Api, type V1Api } from "@/features/v1/server";
import {
  type AgentRuntime,
  type AgentTools,
  confirmationTimeoutFromEnv,
  createAgentRuntime,
  createAgentTools,
} from "@/lib/agent";
import type { ToolSet } from "@/lib/agent/tool";
import { joinToolSources, skillsToolSource } from "@/lib/agent/toolsets/skills";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { type ApiKeyCache, processKeyCache } from "@/lib/auth/api-keys";
import { ClusterBus, type ClusterBusOptions, clusterOptionsFromEnv, shareCooldowns } from "@/lib/cluster";
import { registerBatcher } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { operatorMaskPatterns } from "@/lib/core/text/mask";
import { Gateway, loadGatewayConfig } from "@/lib/gateway";
import type { GatewayConfig } from "@/lib/gateway/config";
import { DrizzleConversationStore } from "@/lib/governance/conversations";
import { mintProcessIdentity, type ProcessIdentity } from "@/lib/governance/instance";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import type { GuardrailEngine } from "@/lib/guardrails/engine";
import { createTelemetry, type Telemetry, tracedApi } from "@/lib/observability";
import { Pipeline, type PipelineStores, pipelineStoresFromEnv } from "@/lib/pipeline";
import type { ConversationStore } from "@/lib/turns/conversation";
import type { TurnObserver } from "@/lib/turns/observer";

export type ContainerOptions = {
  /** The environment the defaults read (process.env unless a test gives its own). */
  env?: NodeJS.ProcessEnv;
  /** An open, migrated database; default: the one the environment names, migrated and (where `demoEnabled`) seeded. */
  database?: DatabaseHandle;
  /** Default: gateway.config.json (or GATEWAY_CONFIG), else the environment's providers. */
  gateway?: Gateway | GatewayConfig;
  /** Whether this deployment runs the demo (its orders tool set is registered); default: `demoEnabled(env)` (SEED_DEMO=1, or unset on the embedded database). */
  demo?: boolean;
  /** The MCP client's options besides the database and environment (tests: a resolver, short idle times). */
  mcp?: Omit<Parameters<typeof createMcp>[0], "db" | "env">;
  /** The cluster bus, or where it connects (default: REDIS_URL, else DATABASE_URL, else this process alone). */
  cluster?: ClusterBus | ClusterBusOptions;
};

/**
 * The process's long-lived objects, each built once on first use, in one place: Next gives every route bundle its
 * own copy of a module, so the container (not the modules) holds them. Start-up touches them in order.
 */
export type Container = {
  /** The database, opened (and for the default one, migrated and seeded) once; a failed open is retried. */
  database(): Promise<DatabaseHandle>;
  db(): Promise<Database>;
  readonly gateway: Gateway;
  /** Rate-limit and budget counters and the response cache (Redis when REDIS_URL is set, else PostgreSQL). */
  readonly stores: PipelineStores;
  readonly pipeline: Pipeline;
  /** Applies tenants' guardrail policies: the pipeline's step, and the Guardrails page's "test a text". */
  readonly guardrails: GuardrailEngine;
  /** This process, as stamped on the turns it runs and in its heartbeat row. */
  readonly instance: ProcessIdentity;
  /**
   * The line to the other instances (start-up starts it): Stop and Approve / Deny reach the turn wherever it runs,
   * cooldowns are shared, key revocations arrive. Its id is the instance's.
   */
  readonly cluster: ClusterBus;
  readonly conversations: ConversationStore;
  /** The registered tool sets, without the agent's loop, scheduler or task runner. */
  readonly tools: AgentTools;
  /** The tenants' MCP servers: their sessions, and their tool sets (the registry's tenant source). */
  readonly mcp: Mcp;
  readonly agent: AgentRuntime;
  /** The per-turn ledger and audit recorder of the agent's turns and playground runs (/v1 batches its own). */
  readonly recorder: TurnObserver;
  readonly v1: V1Api;
  /** /mcp: the tenant's governed tools for outside agents, with a tenant API key (stateless, per request). */
  readonly mcpServer: (req: Request) => Promise<Response>;
  /** This process's evaluation runner (start-up starts it; SIGTERM stops its claiming). */
  readonly evals: EvalRunner;
  /**
   * Sends fired alerts' deliveries (the leader's background service); `wake()` after firing, `sendTest(channel)`
   * for the Alerts page's button.
   */
  readonly alerts: AlertSender;
  /** Secret → live key; revocations from every instance reach it once start-up starts its feed. */
  readonly keyCache: ApiKeyCache;
  readonly pages: PageCatalog;
  /** Whether this deployment runs the demo (its orders exist as tools and as context items). */
  readonly demo: boolean;
  /** The page schemas summarised for the model (tenant admins' and the super admin's turns), built once per role. */
  readonly schemaContext: SchemaContext;
  /** The process's metrics (one Prometheus registry), and the observer that feeds them, logs and traces turns. */
  readonly telemetry: Telemetry;
  /** The admin pages' read replica (DATABASE_READ_URL), opened on first use; undefined without one. */
  readonly reads?: () => Promise<ReadRouter>;
  /** Lets go of the connections the container opened besides the database (Redis, the cluster bus). */
  close(): Promise<void>;
};

export function createContainer(options: ContainerOptions = {}): Container {
  const env = options.env ?? process.env;
  // Masking reads MASK_PATTERNS from the process: a pattern that does not compile stops the start here.
  operatorMaskPatterns();
  const demo = options.demo ?? demoFromEnv(env) !== null;
  const database = retryingOnce(() =>
    options.database ? Promise.resolve(options.database) : openAppDatabase(demoPreparation(env)),
  );
  const db = async () => (await database()).db;
  // The admin pages' reads from a streaming replica (DATABASE_READ_URL), else none: the pages read the primary.
  const readUrl = env.DATABASE_READ_URL?.trim();
  let router: ReadRouter | null = null;
  const reads = readUrl
    ? retryingOnce(async () => {
        if ((await database()).kind !== "postgres")
          throw new Error("DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica");
        router = await openReadRouter(database, readUrl, readRouterOptionsFromEnv(env), {
          onChange: (usable, detail) =>
            usable
              ? log.info("the admin pages read from the read replica again")
              : log.warn(
                  { reason: detail.reason, lagMs: detail.lagMs, error: detail.error },
                  detail.reason === "lagging"
                    ? "the read replica is too far behind: the admin pages read from the primary"
                    : "the read replica cannot be reached: the admin pages read from the primary",
                ),
        });
        return router;
      })
    : undefined;
  const instance = once(mintProcessIdentity);
  const cluster = once(() =>
    options.cluster instanceof ClusterBus
      ? options.cluster
      : new ClusterBus({ ...(options.cluster ?? clusterOptionsFromEnv(env)), instanceId: instance().id }),
  );
  const gateway = once(() => {
    const built =
      options.gateway instanceof Gateway
        ? options.gateway
        : new Gateway(options.gateway ?? loadGatewayConfig(env));
    // A deployment one instance finds failing is skipped by every instance until the same moment.
    shareCooldowns(cluster(), built.cooldowns);
    built.startHealthChecks();
    return built;
  });
  const stores = once(() => pipelineStoresFromEnv(db, env));
  // Webhook checks go out through the address guard the web tools use (WEB_FETCH_ALLOW opens ranges); a model
  // check's judge is a metered call of its own (source `guardrail`).
  const guardrails = once(() =>
    createTenantGuardrailEngine({
      allow: parseAllowList(env.WEB_FETCH_ALLOW),
      metered: () => ({ pipeline: pipeline(), recorder: recorder() }),
      db,
    }),
  );
  const pipeline: Once<Pipeline> = once(
    () =>
      new Pipeline({
        db,
        gateway,
        counters: () => stores().counters,
        cache: () => stores().cache,
        guardrails: toolGuardrails(),
      }),
  );
  // The same engine and policies guard tool calls' arguments and MCP tools' descriptions.
  const toolGuardrails = () => ({
    policy: async (tenantId: string) => loadGuardrailPolicy(await db(), tenantId),
    engine: guardrails(),
  });
  const conversations = once(() => new DrizzleConversationStore(db));
  // The demo's orders tools exist only where the demo does, never for every tenant of a real deployment.
  const dataToolSets = (): ToolSet[] => (demo ? [ordersToolSet(db)] : []);
  // The page catalog lists the registered tools only when a page asks, so the tools may be built from its schemas.
  const pages: Once<PageCatalog> = once(() =>
    PageCatalog.load({
      listTools: () => tools().registry.listTools(),
      reads,
      routes: () => gateway().routingTable(),
    }),
  );
  const toolDeps = () => ({
    db,
    gateway: gateway(),
    pipeline: pipeline(),
    store: conversations(),
    dataToolSets,
    adminToolSets: () => [governanceToolSet(pages())],
    env,
    cluster: cluster(),
    guardrails: toolGuardrails(),
  });
  const mcp = once(() => createMcp({ db, env, ...options.mcp }));
  const tools: Once<AgentTools> = once(() => {
    const built = createAgentTools(toolDeps());
    // Each tenant's skills (skill_load, skill_file and the list in the prompt) and registered MCP servers join its
    // turns' tools, after the app's own.
    built.registry.setTenantSource(joinToolSources(skillsToolSource(skillLibrary(db)), mcp().source));
    return built;
  });
  const telemetry = once(() =>
    createTelemetry({
      env,
      providerType: (name) => gateway().config.providers[name]?.type,
      reads: reads ? () => router?.stats() ?? NO_READ_STATS : undefined,
    }),
  );
  // Every turn of the agent (and every playground run) leaves a ledger row and an audit trail, stamped with this
  // process; where the row closes, the turn counts in the metrics, writes its log line and its spans.
  const recorder = once(() => telemetry().observe(new GovernanceRecorder(db, { instanceId: instance().id })));
  const agent = once(() =>
    createAgentRuntime(
      {
        ...toolDeps(),
        observer: recorder(),
        confirmationTimeoutMs: confirmationTimeoutFromEnv(env),
        // A schedule's answer for an alert channel becomes a durable delivery, sent by the alert sender.
        deliverScheduleResult: async (result) => {
          await queueScheduleResult(await db(), result);
          alerts().wake();
        },
      },
      tools(),
    ),
  );
  const v1 = once(() => {
    const api = createV1Api({
      db,
      gateway,
      pipeline: pipeline(),
      observe: telemetry().observe,
      wrap: tracedApi,
    });
    // Flushed on SIGTERM/SIGINT (lib/governance/shutdown.ts), its lag shown on /api/health.
    registerBatcher({ name: "v1", flush: api.flush, stats: () => api.recorder.stats() });
    return api;
  });
  const mcpServer = once(() =>
    createMcpHandler({
      db,
      registry: () => tools().registry,
      pipeline,
      recorder,
      guardrails: toolGuardrails,
    }),
  );
  const evals = once(
    () =>
      new EvalRunner({
        db,
        calls: { pipeline: pipeline(), recorder: recorder() },
        toolSchemas: (names) => tools().registry.schemasOf(names),
        owner: instance().id,
      }),
  );
  // Webhooks and Slack go out through the same address guard (WEB_FETCH_ALLOW opens ranges); email by SMTP.
  const alerts = once(
    () =>
      new AlertSender({
        db,
        transports: transportsFromEnv(env),
        onOutcome: (kind, outcome) => telemetry().metrics.alertDeliveries.inc({ kind, outcome }),
      }),
  );
  const schemaContext = once(() => new SchemaContext(pages()));
  return {
    database,
    db,
    get gateway() {
      return gateway();
    },
    get stores() {
      return stores();
    },
    get guardrails() {
      return guardrails();
    },
    get pipeline() {
      return pipeline();
    },
    get instance() {
      return instance();
    },
    get cluster() {
      return cluster();
    },
    get conversations() {
      return conversations();
    },
    get tools() {
      return tools();
    },
    get mcp() {
      return mcp();
    },
    get agent() {
      return agent();
    },
    get recorder() {
      return recorder();
    },
    get v1() {
      return v1();
    },
    get mcpServer() {
      return mcpServer();
    },
    get evals() {
      return evals();
    },
    get alerts() {
      return alerts();
    },
    get keyCache() {
      return processKeyCache();
    },
    get pages() {
      return pages();
    },
    demo,
    get schemaContext() {
      return schemaContext();
    },
    get telemetry() {
      return telemetry();
    },
    reads,
    close: async () => {
      if (gateway.built()) gateway().close();
      if (router) await (router as ReadRouter).close();
      if (evals.built()) evals().stop();
      if (alerts.built()) await alerts().stop();
      if (stores.built()) await stores().close();
      if (mcp.built()) await mcp().clients.close();
      // A bus the caller handed in is the caller's to close.
      if (cluster.built() && !(options.cluster instanceof ClusterBus)) await cluster().close();
    },
  };
}

const NO_READ_STATS: ReadStats = {
  configured: true,
  usingReplica: false,
  lagSeconds: null,
  fallbacks: { unreachable: 0, lagging: 0 },
};

type Once<T> = (() => T) & { built(): boolean };

/** `build` called on first use only; later calls answer the same value. */
function once<T>(build: () => T): Once<T> {
  let built: { value: T } | null = null;
  const get = () => {
    built ??= { value: build() };
    return built.value;
  };
  return Object.assign(get, { built: () => built !== null });
}

/** Like `once` for a promise, but a rejected attempt is forgotten so the next call tries again. */
function retryingOnce<T>(start: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= start().catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
}

import "server-only";
import type { Database } from "@/db";
import type { ClusterBus } from "@/lib/cluster";
import { log } from "@/lib/core/process/log";
import type { Gateway } from "@/lib/gateway";
import type { Pipeline } from "@/lib/pipeline";
import type { ConversationStore } from "@/lib/turns/conversation";
import type { TurnObserver } from "@/lib/turns/observer";
import { CodeSandbox } from "./code/sandbox";
import { codeRunModeOf, sandboxFilesOf } from "./code/settings";
import { Confirmations } from "./confirmations";
import { drizzleConversationFiles } from "./conversation-files";
import { ToolRegistry } from "./registry";
import type { ScheduleResultDelivery } from "./schedule-targets";
import { Scheduler } from "./scheduler";
import { AgentService } from "./service";
import { RunningTurns } from "./stop-registry";
import { DrizzleTaskQueue } from "./task-queue";
import { TaskManager } from "./tasks";
import type { ToolSet } from "./tool";
import type { ToolGuardrails } from "./tool-guardrails";
import { ClockToolSet } from "./toolsets/clock";
import { CODE_TASK_KIND, type CodeToolDeps, codeTaskKind, codeToolSet } from "./toolsets/code";
import { memoryToolSet } from "./toolsets/memory";
import { runSubagent, subagentToolSet } from "./toolsets/subagent";
import { tasksToolSet } from "./toolsets/tasks";
import { timeToolSet } from "./toolsets/time";
import { TodoToolSet } from "./toolsets/todo";
import { visionToolSetFromEnv } from "./toolsets/vision";
import { webToolSetFromEnv } from "./toolsets/web";
import { webFetchPolicyOf } from "./web-policy";

/** What the agent's tools need: the database, the gateway and the pipeline every model call goes through. */
export type AgentToolDeps = {
  db: () => Promise<Database>;
  gateway: Gateway;
  pipeline: Pipeline;
  store: ConversationStore;
  /** Tool sets over the deployment's own data (the demo's orders, when the demo is seeded), fresh per registry. */
  dataToolSets?: () => ToolSet[];
  /**
   * Read-only tool sets over the governance data (the admin pages' tools), offered to tenant admins by their
   * tools' roles; the main agent's only, never a sub-agent's.
   */
  adminToolSets?: () => ToolSet[];
  /** What the web tools read (WEB_FETCH_ALLOW, WEB_SEARCH_URL…); default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * The line to the other instances: Stop and Approve / Deny reach the turn wherever it runs, a stopped task is
   * dropped at once by the runner that has it. Without it, each reaches this process only.
   */
  cluster?: ClusterBus;
  /** The tenants' guardrails over tool arguments and MCP tool descriptions (the pipeline's engine and policies). */
  guardrails?: ToolGuardrails;
  /** Where code_run runs JavaScript (default: a sandbox of this process, CODE_SANDBOX_CONCURRENCY runs at once). */
  sandbox?: CodeSandbox;
};

/**
 * What the agent runtime adds: the recorder of every turn (ledger row and audit trail), and how long a user has to
 * approve a call that needs it (default 60 s).
 */
export type AgentDeps = AgentToolDeps & {
  observer: TurnObserver;
  confirmationTimeoutMs?: number;
  /** Queues a clock schedule's answer for its alert channel target (features/alerts, wired at start-up). */
  deliverScheduleResult?: ScheduleResultDelivery;
};

export const DEFAULT_CONFIRMATION_TIMEOUT_MS = 60_000;

/** TOOL_CONFIRMATION_TIMEOUT_MS: how long a drawer user has to Approve / Deny a call (100 ms to 1 h; unset: 60 s). */
export function confirmationTimeoutFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.TOOL_CONFIRMATION_TIMEOUT_MS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_CONFIRMATION_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 3_600_000)
    throw new Error(
      `TOOL_CONFIRMATION_TIMEOUT_MS must be a whole number of ms from 100 to 3600000 (got "${raw}")`,
    );
  return ms;
}

/** The registered tool sets and the background tasks they start; nothing runs until `tasks.startRunner()`. */
export type AgentTools = { registry: ToolRegistry; tasks: TaskManager };

export type AgentRuntime = AgentTools & {
  agent: AgentService;
  /** The calls of this process's drawer turns waiting for the user's Approve / Deny (decided from any instance). */
  confirmations: Confirmations;
  /** This process's running drawer turns, which a Stop on any instance reaches. */
  turns: RunningTurns;
  scheduler: Scheduler;
  store: ConversationStore;
};

/**
 * Registers the tool sets (a name clash fails here, at start) and the background tasks the tools start, without
 * starting any runner or schedule: enough to list the tools.
 */
export function createAgentTools(deps: AgentToolDeps): AgentTools {
  const { gateway, pipeline, store } = deps;
  const dataToolSets = deps.dataToolSets ?? (() => []);
  // web_fetch (and load_image's URLs) read the tenant's setting (off / allow-listed domains / any) on every call.
  const webPolicy = async (tenantId: string) => webFetchPolicyOf(await deps.db(), tenantId);
  const web = () => webToolSetFromEnv(deps.env ?? process.env, webPolicy);
  // What a sub-agent may use: everything but delegation, background tasks and schedules (no recursion).
  const subRegistry = registerAll(new ToolRegistry(), [
    timeToolSet(),
    memoryToolSet(),
    ...dataToolSets(),
    web(),
  ]);
  // Every model call, the sub-agents' too, goes through the request pipeline (cache, rate limits, budgets).
  const subagent = { gateway, pipeline, registry: subRegistry, guardrails: deps.guardrails };
  // code_run reads the tenant's setting (off / on / files) on every call, and mounts only the caller's files.
  const code: CodeToolDeps = {
    sandbox: deps.sandbox ?? new CodeSandbox({ maxConcurrent: sandboxConcurrency(deps.env ?? process.env) }),
    mode: async (tenantId) => codeRunModeOf(await deps.db(), tenantId),
    files: async (owner) => sandboxFilesOf(await deps.db(), owner),
  };
  // Background tasks wait in the database: any instance's runner claims them, and they survive a restart.
  const tasks = new TaskManager(
    store,
    {
      research: {
        description: "a sub-agent works on the instructions in the background and reports back",
        run: async (instructions, ctx) => (await runSubagent(subagent, instructions, ctx)).answer,
      },
      [CODE_TASK_KIND]: codeTaskKind(code),
    },
    { queue: new DrizzleTaskQueue(deps.db), cluster: deps.cluster },
  );
  const registry = registerAll(new ToolRegistry(), [
    new TodoToolSet(),
    timeToolSet(),
    memoryToolSet(),
    ...dataToolSets(),
    web(),
    visionToolSetFromEnv(deps.env ?? process.env, webPolicy),
    subagentToolSet(subagent),
    tasksToolSet(tasks),
    codeToolSet(code, tasks),
    new ClockToolSet(),
    ...(deps.adminToolSets?.() ?? []),
  ]);
  return { registry, tasks };
}

/**
 * The app's agent over its tools: the tool loop over the gateway, recorded by `observer`, and the scheduler of
 * clock messages (started by start-up, like the task runner).
 */
export function createAgentRuntime(
  deps: AgentDeps,
  tools: AgentTools = createAgentTools(deps),
): AgentRuntime {
  const confirmations = new Confirmations({
    timeoutMs: deps.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS,
    cluster: deps.cluster,
  });
  const turns = new RunningTurns(deps.cluster);
  const agent = new AgentService({
    gateway: deps.gateway,
    pipeline: deps.pipeline,
    registry: tools.registry,
    store: deps.store,
    observer: deps.observer,
    confirmations,
    guardrails: deps.guardrails,
    files: drizzleConversationFiles(deps.db),
  });
  const scheduler = new Scheduler({
    db: deps.db,
    agent,
    deliver: deps.deliverScheduleResult,
    log: { info: (m) => log.info(m), error: (m, err) => log.error({ err }, m) },
  });
  return { ...tools, agent, confirmations, turns, scheduler, store: deps.store };
}

/** CODE_SANDBOX_CONCURRENCY: code runs at once in one process (1 to 64; unset: 4). */
export function sandboxConcurrency(env: Record<string, string | undefined>): number {
  const raw = env.CODE_SANDBOX_CONCURRENCY;
  if (raw === undefined || raw.trim() === "") return 4;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new Error(`CODE_SANDBOX_CONCURRENCY must be a whole number from 1 to 64 (got "${raw}")`);
  return n;
}

function registerAll(registry: ToolRegistry, sets: ToolSet[]): ToolRegistry {
  for (const set of sets) registry.register(set);
  return registry;
}

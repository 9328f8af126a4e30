import { getDb } from "@/db";
import { log } from "@/lib/core/log";
import { ordersToolSet } from "@/lib/demo/orders-tools";
import { getGateway } from "@/lib/gateway";
import { DrizzleConversationStore } from "@/lib/governance/conversations";
import { processIdentity } from "@/lib/governance/instance";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { getPipeline } from "@/lib/pipeline";
import type { ConversationStore } from "@/lib/turns/conversation";
import { ToolRegistry } from "./registry";
import { Scheduler } from "./scheduler";
import { AgentService } from "./service";
import { DrizzleTaskQueue } from "./task-queue";
import { TaskManager } from "./tasks";
import { ClockToolSet } from "./toolsets/clock";
import { memoryToolSet } from "./toolsets/memory";
import { runSubagent, subagentToolSet } from "./toolsets/subagent";
import { tasksToolSet } from "./toolsets/tasks";
import { timeToolSet } from "./toolsets/time";
import { TodoToolSet } from "./toolsets/todo";
import { webToolSetFromEnv } from "./toolsets/web";

export type AgentRuntime = {
  agent: AgentService;
  registry: ToolRegistry;
  tasks: TaskManager;
  scheduler: Scheduler;
  store: ConversationStore;
};

type Holder = { __tollgateAgent?: AgentRuntime };
const holder = globalThis as Holder;

/**
 * Builds the app's agent once per process: the built-in tool sets registered (a name clash fails here, at
 * start), the tool loop over the gateway, background tasks, and the scheduler of clock messages.
 */
export function getAgentRuntime(): AgentRuntime {
  if (holder.__tollgateAgent) return holder.__tollgateAgent;
  const gateway = getGateway();
  const store = new DrizzleConversationStore(getDb);
  // What a sub-agent may use: everything but delegation, background tasks and schedules (no recursion).
  const subRegistry = new ToolRegistry()
    .register(timeToolSet())
    .register(memoryToolSet())
    .register(ordersToolSet())
    .register(webToolSetFromEnv());
  // Every model call, the sub-agents' too, goes through the request pipeline (cache, rate limits, budgets).
  const pipeline = getPipeline();
  const subagent = { gateway, pipeline, registry: subRegistry };
  // Background tasks wait in the database: any instance's runner claims them, and they survive a restart.
  const tasks = new TaskManager(
    store,
    {
      research: {
        description: "a sub-agent works on the instructions in the background and reports back",
        run: async (instructions, ctx) => (await runSubagent(subagent, instructions, ctx)).answer,
      },
    },
    { queue: new DrizzleTaskQueue(getDb) },
  );
  const registry = new ToolRegistry()
    .register(new TodoToolSet())
    .register(timeToolSet())
    .register(memoryToolSet())
    .register(ordersToolSet())
    .register(webToolSetFromEnv())
    .register(subagentToolSet(subagent))
    .register(tasksToolSet(tasks))
    .register(new ClockToolSet());
  // Every turn leaves a ledger row and an audit trail.
  const agent = new AgentService({
    gateway,
    pipeline,
    registry,
    store,
    observer: new GovernanceRecorder(getDb, { instanceId: processIdentity().id }),
  });
  const scheduler = new Scheduler({
    db: getDb,
    agent,
    log: { info: (m) => log.info(m), error: (m, err) => log.error({ err }, m) },
  });
  holder.__tollgateAgent = { agent, registry, tasks, scheduler, store };
  return holder.__tollgateAgent;
}

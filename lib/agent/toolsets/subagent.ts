import { v7 as uuidv7 } from "uuid";
import { z } from "zod";
import type { Gateway } from "@/lib/gateway/gateway";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import type { TurnSummary } from "@/lib/turns/events";
import type { ToolRegistry } from "../registry";
import { AgentService } from "../service";
import { defineTool, StaticToolSet, type ToolContext } from "../tool";
import type { ToolGuardrails } from "../tool-guardrails";

export type SubagentOptions = {
  gateway: Gateway;
  /** The request pipeline, so a sub-agent's calls count against the same limits and budgets. */
  pipeline?: Pipeline;
  /** The sub-agent's own tools (never the subagent tool itself, so delegation cannot recurse). */
  registry: ToolRegistry;
  maxToolLoops?: number;
  model?: string;
  /** The tenant's `tool_input` guardrails: a sub-agent's tool calls are checked as the main agent's are. */
  guardrails?: ToolGuardrails;
};

const SUBAGENT_PROMPT =
  "You are a sub-agent working on one delegated task for another agent. Do the task with your tools and reply with a short, complete result; the other agent only sees your final answer.";

/** Runs a delegated task to its end as a nested agent; its tokens and cost roll up into the calling turn. */
export async function runSubagent(
  options: SubagentOptions,
  task: string,
  ctx: Pick<ToolContext, "tenantId" | "userId" | "role" | "signal" | "addUsage" | "noteUse"> & {
    turnId?: string;
  },
): Promise<{ status: TurnSummary["status"]; answer: string; rounds: number; toolCalls: number }> {
  const agent = new AgentService(
    {
      gateway: options.gateway,
      pipeline: options.pipeline,
      registry: options.registry,
      store: new InMemoryConversationStore(),
      guardrails: options.guardrails,
    },
    { systemPrompt: SUBAGENT_PROMPT, maxToolLoops: options.maxToolLoops ?? 3 },
  );
  const conversationId = uuidv7();
  let answer = "";
  let summary: TurnSummary | undefined;
  try {
    for await (const event of agent.send(
      { tenantId: ctx.tenantId, userId: ctx.userId, role: ctx.role, conversationId },
      // Part of the delegating turn's run: its calls count against the same run ceilings.
      { message: task, model: options.model, ...(ctx.turnId ? { runId: ctx.turnId } : {}) },
      ctx.signal,
    )) {
      if (event.type === "text") answer += event.delta;
      else if (event.type === "done") summary = event.summary;
    }
  } finally {
    options.registry.forget(conversationId);
  }
  if (summary) ctx.addUsage(summary.usage, summary.cost, summary.costStatus);
  // The sub-agent has no ledger row of its own: the skills it loaded are the delegating turn's, as its tokens are.
  for (const skill of summary?.skills ?? []) ctx.noteUse({ kind: "skill", ...skill });
  if (summary?.status === "failed")
    throw new Error(`the sub-agent failed: ${summary.error?.message ?? "unknown error"}`);
  return {
    status: summary?.status ?? "failed",
    answer,
    rounds: summary?.rounds ?? 0,
    toolCalls: summary?.toolTrace.length ?? 0,
  };
}

export function subagentToolSet(options: SubagentOptions): StaticToolSet {
  const delegate = defineTool({
    name: "delegate",
    needs: "user",
    description:
      "Hand a self-contained sub-task to a sub-agent with its own tools (orders, time, memory, web) and get its answer back. Use it for a side investigation that would clutter this conversation.",
    category: "agents",
    keywords: ["delegate", "sub-agent", "subagent"],
    timeoutMs: 120_000,
    // The sub-agent has web_fetch and asks no one: in a turn carrying outside text, delegating is sending out.
    sendsTo: () => "the web, through a sub-agent",
    readsOutsideText: true,
    parameters: z.object({
      task: z
        .string()
        .min(1)
        .max(4000)
        .describe("The task, with every detail the sub-agent needs: it does not see this conversation"),
    }),
    execute: async ({ task }, ctx) => runSubagent(options, task, ctx),
  });
  return new StaticToolSet("subagent", [delegate]);
}

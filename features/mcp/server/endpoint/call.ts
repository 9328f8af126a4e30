import "server-only";
import { v7 as uuidv7 } from "uuid";
import { runToolCall, type ToolCallContext } from "@/lib/agent/run-tools";
import { type ToolGuardrails, toolInputGuard } from "@/lib/agent/tool-guardrails";
import { ToolUses } from "@/lib/agent/tool-uses";
import type { ResolvedKey } from "@/lib/auth/api-keys";
import { addCost } from "@/lib/gateway/pricing";
import {
  addUsage,
  type CostStatus,
  combineCostStatus,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "@/lib/gateway/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { ApiTurnSummary, TurnError, TurnStatus } from "@/lib/turns/events";
import type { TurnObserver } from "@/lib/turns/observer";
import { KEY_ROLE, type McpOffer } from "./offer";

export type McpCallDeps = {
  pipeline: Pipeline;
  /** The per-turn recorder (ledger row and audit trail), as the playground and evaluation runs use it. */
  recorder: TurnObserver;
  /** A tool's timeout when it sets none: the agent loop's (30 s). */
  toolTimeoutMs: number;
  /** The tenant's `tool_input` guardrails (source `mcp`, the key's scope); without them none apply. */
  guardrails?: ToolGuardrails;
};

/** How a tools/call ended: a result (the tool's, or its `{"error"}`), or a refusal before any tool ran. */
export type McpCallOutcome =
  | { kind: "result"; turnId: string; ok: boolean; content: string }
  | { kind: "refused"; turnId: string; reason: "unknown_tool" | "tool_not_allowed"; message: string };

/** The ledger's error class of a tool call that did not succeed, from the loop's trace (`runToolCall`). */
const ERROR_CLASS: Record<string, string> = {
  "invalid arguments": "invalid_arguments",
  timeout: "timeout",
  error: "tool_error",
  "not allowed": "tool_not_allowed",
  "unknown tool": "unknown_tool",
  "blocked by a guardrail": "guardrail_blocked",
};

/**
 * One tools/call over /mcp, as one ledger row (source `mcp`, the key's tenant and id, no conversation, no model:
 * its "model" is `tool:<name>`) with its audit trail: `request` (the call, masked like every payload), then the
 * rate limit's guardrail if it refuses, `tool_call`, and `tool_result` (or the refusal). The tool runs under the
 * agent loop's rules (`runToolCall`: argument validation, timeout, the 8,000-character cut, `{"error"}` results with
 * secrets masked), with the key's rate limits in front. It costs nothing unless the tool reports spend.
 */
export async function callTool(
  deps: McpCallDeps,
  key: ResolvedKey,
  offer: McpOffer,
  call: { name: string; args: Record<string, unknown>; runId?: string },
  signal: AbortSignal,
): Promise<McpCallOutcome> {
  const turnId = uuidv7();
  const started = performance.now();
  const spend = new Spend();
  const uses = new ToolUses();
  const { recorder } = deps;
  const requestedModel = `tool:${call.name}`;
  const tool = offer.offered.get(call.name);
  await recorder.start({
    turnId,
    tenantId: key.tenantId,
    userId: key.createdBy,
    conversationId: null,
    source: "mcp",
    apiKeyId: key.id,
    requestedModel,
    message: `${call.name} ${JSON.stringify(call.args)}`,
    toolsOffered: tool ? [call.name] : [],
    startedAt: new Date(),
    inputs: { tool: call.name },
    ...(call.runId ? { runId: call.runId } : {}),
  });
  const close = async (status: TurnStatus, trace: ApiTurnSummary["toolTrace"], error?: TurnError) =>
    recorder.end({
      turnId,
      conversationId: null,
      status,
      requestedModel,
      servedProvider: null,
      servedAdapter: null,
      servedModel: null,
      fallbackIndex: null,
      attempts: [],
      usage: spend.usage,
      cost: spend.cost,
      costStatus: spend.costStatus,
      rounds: 0,
      toolTrace: trace,
      timeToFirstTokenMs: null,
      latencyMs: Math.round(performance.now() - started),
      ...uses.summary(),
      ...(error ? { error } : {}),
    });

  // The key's (and the tenant's) requests per minute, and its run's ceilings, counted first so refused calls count too.
  for (const event of await deps.pipeline.admit({
    tenantId: key.tenantId,
    userId: key.createdBy,
    apiKeyId: key.id,
    source: "mcp",
    ...(call.runId ? { runId: call.runId } : {}),
  })) {
    if (event.type === "guardrail")
      recorder.event(turnId, {
        type: "guardrail",
        code: event.code,
        tool: call.name,
        message: event.message,
      });
    else if (event.type === "error") {
      await close("failed", [], { class: event.error.class, message: event.error.message });
      return { kind: "result", turnId, ok: false, content: JSON.stringify({ error: event.error.message }) };
    }
  }

  if (!tool) {
    const reason = offer.withheld.get(call.name);
    const refusal = reason
      ? {
          reason: "tool_not_allowed" as const,
          message: `${call.name} is not available to this API key: ${reason}.`,
        }
      : { reason: "unknown_tool" as const, message: `Unknown tool: ${call.name}` };
    if (reason)
      recorder.event(turnId, {
        type: "guardrail",
        code: "tool_not_allowed",
        tool: call.name,
        message: refusal.message,
      });
    else recorder.event(turnId, { type: "error", class: refusal.reason, message: refusal.message });
    await close("failed", [], { class: refusal.reason, message: refusal.message });
    return { kind: "refused", turnId, ...refusal };
  }

  const toolCall: ToolCall = { id: `mcp_${turnId}`, name: call.name, args: call.args };
  recorder.event(turnId, { type: "tool_call", call: toolCall, round: 0 });
  const outcome = await runToolCall(toolCall, {
    tools: offer.offered,
    mayCall: () => true,
    maxConcurrent: 1,
    defaultTimeoutMs: deps.toolTimeoutMs,
    context: (_call, callSignal): ToolCallContext => ({
      tenantId: key.tenantId,
      // Whoever minted the key, as on the key's /v1 rows (the ledger names the key, not them).
      userId: key.createdBy,
      role: KEY_ROLE,
      // No conversation: the call's own id stands in (tools that need a conversation are not offered).
      conversationId: turnId,
      turnId,
      signal: callSignal,
      // Display messages and cards are the drawer's: an outside agent gets the result text only.
      emit: async () => {},
      addUsage: (usage, cost, costStatus) => spend.add(usage, cost, costStatus),
      noteUse: uses.note,
    }),
    signal,
    guardInput: deps.guardrails
      ? toolInputGuard(deps.guardrails, {
          tenantId: key.tenantId,
          userId: key.createdBy,
          keyId: key.id,
          source: "mcp",
        })
      : undefined,
  });
  for (const event of outcome.events) recorder.event(turnId, event);
  const failure = outcome.trace.error;
  const status: TurnStatus = outcome.ok ? "success" : failure === "cancelled" ? "stopped" : "failed";
  await close(
    status,
    [outcome.trace],
    outcome.ok || status === "stopped"
      ? undefined
      : { class: ERROR_CLASS[failure ?? "error"] ?? "tool_error", message: errorMessageOf(outcome.content) },
  );
  return { kind: "result", turnId, ok: outcome.ok, content: outcome.content };
}

/** The message of a `{"error": "…"}` result (the loop's shape), else the result itself. */
function errorMessageOf(content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {}
  return content;
}

/** What a tool spent on the caller's behalf (a tenant tool that reports usage); nothing for most tools. */
class Spend {
  usage: Usage = ZERO_USAGE;
  cost: string | null = "0";
  costStatus: CostStatus = "priced";
  add(usage: Usage, cost: string | null, costStatus: CostStatus = cost === null ? "unpriced" : "priced") {
    this.usage = addUsage(this.usage, usage);
    this.cost = addCost(this.cost, cost);
    this.costStatus = combineCostStatus(this.costStatus, costStatus);
  }
}

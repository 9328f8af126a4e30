import { maskText } from "@/lib/core/text/mask";
import type { ToolCall } from "@/lib/gateway/types";
import type { AgentCard } from "@/lib/turns/cards";
import type { AgentEvent, ToolTraceEntry } from "@/lib/turns/events";
import { ResultWithCards, validCards } from "./cards";
import {
  type ConfirmDecision,
  type ConfirmOutcome,
  cannotAskMessage,
  DENIED_MESSAGE,
  timedOutMessage,
} from "./confirmations";
import { type EgressReason, egressReason } from "./outside-text";
import { parseToolArgs, type Tool, type ToolContext } from "./tool";
import type { ToolInputGuard } from "./tool-guardrails";
import {
  type AddedAllowance,
  type AddedMessage,
  noVisionMessage,
  summaryOf,
  type ToolMessage,
  type TurnModel,
} from "./tool-messages";

export const RESULT_LIMIT = 8_000;

/** A call's context but for `addMessage`, which the run adds (it keeps the call's one message with its outcome). */
export type ToolCallContext = Omit<ToolContext, "addMessage">;

export type ToolRunOptions = {
  tools: Map<string, Tool>;
  /** Tools this user may call (by role); others are refused. */
  mayCall(tool: Tool): boolean;
  maxConcurrent: number;
  defaultTimeoutMs: number;
  context: (call: ToolCall, signal: AbortSignal) => ToolCallContext;
  /**
   * Checks and reads a message a call adds (ToolContext.addMessage) for the turn's model. Absent (/mcp, an MCP
   * server's test call): no model reads one, and addMessage rejects.
   */
  addMessage?: (call: ToolCall, message: ToolMessage) => Promise<AddedMessage>;
  /** What the turn's added messages may still carry; a call that does not end well gives its share back. */
  allowance?: AddedAllowance;
  /** The turn's model alias: tools that need vision are refused when it cannot read images. */
  model?: TurnModel;
  signal: AbortSignal;
  /**
   * Asks the user to approve a call of a tool that requires it, and waits (the call keeps its place among the
   * round's running calls). Absent (a schedule, a sub-agent, /mcp): such tools are not run.
   */
  confirm?: ConfirmGate;
  /**
   * Where outside text entered the turn (null: none did); then a tool that sends data out needs the user's
   * confirmation too.
   */
  outsideText?: () => string | null;
  /** The tenant's `tool_input` guardrails over the arguments, before the tool runs; absent: none apply. */
  guardInput?: ToolInputGuard;
};

/** Waits for the user's decision on a call; `timeoutMs` is the limit it was given. */
export type ConfirmGate = (
  call: ToolCall,
  args: unknown,
  signal: AbortSignal,
  reason?: EgressReason,
) => Promise<ConfirmOutcome & { timeoutMs: number }>;

export type ToolOutcome = {
  content: string;
  ok: boolean;
  trace: ToolTraceEntry;
  events: AgentEvent[];
  /** Cards for the drawer (stored on the tool message's data); the model reads only `content`. */
  cards?: AgentCard[];
  /** What the user decided, for a tool that needed their confirmation (stored on the tool message's data). */
  confirmation?: ConfirmDecision;
  /** The message the call added (ToolContext.addMessage), for the model's next round: only when the call ended ok. */
  added?: AddedMessage;
};

/** Cuts a result that would flood the model's context, and says how much was cut. */
export function truncateResult(text: string, limit = RESULT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n…[truncated: ${text.length - limit} more characters]`;
}

const errorResult = (message: string) => JSON.stringify({ error: message });

/**
 * Runs one tool call to a result string: never throws. Unknown tools, refused tools, bad arguments, timeouts
 * and thrown errors all become `{"error": …}` results the model can read and correct itself from.
 */
export async function runToolCall(call: ToolCall, opts: ToolRunOptions): Promise<ToolOutcome> {
  let started = performance.now();
  const events: AgentEvent[] = [];
  let confirmation: ConfirmDecision | undefined;
  let added: AddedMessage | undefined;
  let settled = false;
  const finish = (content: string, ok: boolean, error?: string, cards?: AgentCard[]): ToolOutcome => {
    settled = true;
    const durationMs = Math.round(performance.now() - started);
    const result = truncateResult(content);
    // A call that fails, times out or is cancelled sends no message: the model reads only its error.
    if (added && !ok) opts.allowance?.give(added);
    const kept = ok ? added : undefined;
    events.push({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      ok,
      result,
      durationMs,
      ...(cards?.length ? { cards } : {}),
      ...(kept ? { message: summaryOf(kept) } : {}),
    });
    return {
      content: result,
      ok,
      ...(cards?.length ? { cards } : {}),
      ...(confirmation ? { confirmation } : {}),
      ...(kept ? { added: kept } : {}),
      trace: { callId: call.id, name: call.name, durationMs, ok, error },
      events,
    };
  };
  const tool = opts.tools.get(call.name);
  if (!tool) return finish(errorResult(`unknown tool: ${call.name}`), false, "unknown tool");
  if (tool.hidden || !opts.mayCall(tool)) {
    events.push({
      type: "guardrail",
      code: "tool_not_allowed",
      tool: call.name,
      message: `${call.name} is not allowed for this user`,
    });
    return finish(errorResult("not allowed"), false, "not allowed");
  }
  if (tool.needsVision && !opts.model?.supportsVision)
    return finish(
      errorResult(`${tool.name} is refused: ${noVisionMessage(opts.model)}`),
      false,
      "needs vision",
    );
  let args = parseToolArgs(tool, call.args);
  if (!args.ok) return finish(errorResult(args.error), false, "invalid arguments");
  if (opts.guardInput) {
    let verdict: Awaited<ReturnType<ToolInputGuard>>;
    try {
      verdict = await opts.guardInput(call, args.value as Record<string, unknown>);
    } catch (error) {
      // A guard that fails refuses the call: arguments no rule could check do not reach the tool.
      const message = error instanceof Error ? error.message : String(error);
      return finish(
        errorResult(`Blocked: the guardrail check failed (${maskText(message)}).`),
        false,
        "blocked by a guardrail",
      );
    }
    events.push(...verdict.events);
    if (!verdict.run) return finish(errorResult(verdict.message), false, "blocked by a guardrail");
    // Redacted arguments are validated again: the tool only ever gets arguments its schema accepts.
    if (verdict.args !== args.value) {
      args = parseToolArgs(tool, verdict.args);
      if (!args.ok) return finish(errorResult(args.error), false, "invalid arguments");
    }
  }
  const egress = egressReason(tool, args.value, opts.outsideText?.() ?? null);
  if (tool.requiresConfirmation || egress) {
    if (!opts.confirm)
      return finish(
        errorResult(
          egress ? `${egress.message}: ${cannotAskMessage(call.name)}` : cannotAskMessage(call.name),
        ),
        false,
        "not confirmed",
      );
    let answer: Awaited<ReturnType<ConfirmGate>>;
    try {
      answer = await opts.confirm(call, args.value, opts.signal, egress ?? undefined);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return finish(errorResult(maskText(message)), false, "error");
    }
    if (answer.decision === "cancelled" || opts.signal.aborted)
      return finish(errorResult("cancelled"), false, "cancelled");
    confirmation = answer.decision;
    if (answer.decision === "deny") return finish(errorResult(DENIED_MESSAGE), false, "denied");
    if (answer.decision === "timeout")
      return finish(errorResult(timedOutMessage(answer.timeoutMs)), false, "not confirmed");
    // The tool's own time (and its timeout) starts once it is approved.
    started = performance.now();
  }

  const timeoutMs = tool.timeoutMs ?? opts.defaultTimeoutMs;
  const timeout = new AbortController();
  const signal = AbortSignal.any([opts.signal, timeout.signal]);
  let timer: NodeJS.Timeout | undefined;
  let adding = false;
  const ctx: ToolContext = {
    ...opts.context(call, signal),
    addMessage: async (message) => {
      if (!opts.addMessage) throw new Error("addMessage: no model reads messages added here");
      if (adding) throw new Error("addMessage: a tool call may add one message");
      adding = true;
      try {
        const resolved = await opts.addMessage(call, message);
        if (settled) throw new Error("addMessage: the call has already ended");
        opts.allowance?.take(resolved);
        added = resolved;
        return summaryOf(resolved);
      } catch (error) {
        // A refused message may be tried again smaller; only an added one counts.
        adding = false;
        throw error;
      }
    },
  };
  try {
    const value = await Promise.race([
      tool.execute(args.value as never, ctx),
      // A tool that ignores its signal is still cut off at its timeout.
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timeout.abort();
          reject(new ToolTimeout(tool.name, timeoutMs));
        }, timeoutMs);
      }),
    ]);
    const cards = value instanceof ResultWithCards ? validCards(tool.name, value.cards) : undefined;
    const result = value instanceof ResultWithCards ? value.result : value;
    return finish(
      typeof result === "string" ? result : (JSON.stringify(result) ?? "null"),
      true,
      undefined,
      cards,
    );
  } catch (error) {
    if (opts.signal.aborted) return finish(errorResult("cancelled"), false, "cancelled");
    const message = error instanceof Error ? error.message : String(error);
    // Message only: no stack, and secrets masked, because the model and the audit trail both read it.
    return finish(errorResult(maskText(message)), false, error instanceof ToolTimeout ? "timeout" : "error");
  } finally {
    clearTimeout(timer);
  }
}

class ToolTimeout extends Error {
  constructor(name: string, ms: number) {
    super(`${name} timed out after ${ms} ms`);
  }
}

import { maskSecrets } from "@/lib/core/text/mask";
import type { ToolCall } from "@/lib/gateway/types";
import { cancelledResult, type StoredMessage } from "@/lib/turns/conversation";
import type { AgentEvent, ToolTraceEntry } from "@/lib/turns/events";
import type { Confirmations } from "./confirmations";
import type { ConversationFiles } from "./conversation-files";
import { type ConfirmGate, runToolCall, type ToolCallContext, type ToolOutcome } from "./run-tools";
import type { Tool, ToolContext } from "./tool";
import type { ToolInputGuard } from "./tool-guardrails";
import { type AddedAllowance, addedMessage, resolveToolMessage, type TurnModel } from "./tool-messages";

/** The same tool with the same arguments, counted across the rounds of one turn. */
export type RepeatCounter = { key: string; count: number };

export type RoundTools = {
  tools: Map<string, Tool>;
  mayCall: (tool: Tool) => boolean;
  /** Who calls and for which turn; each call adds its own signal, `emit`, `addUsage`, `noteUse` and `addMessage`. */
  caller: Omit<ToolContext, "signal" | "emit" | "addUsage" | "noteUse" | "addMessage">;
  addUsage: ToolContext["addUsage"];
  noteUse: ToolContext["noteUse"];
  repeats: RepeatCounter;
  signal: AbortSignal;
  limits: { maxConcurrentTools: number; toolTimeoutMs: number; maxRepeatedCalls: number };
  /** Where calls wait for the user's Approve / Deny; absent: no user can be asked (tools needing it do not run). */
  confirmations?: Confirmations;
  /** Where outside text entered the turn so far (null: none did): tools that send data out then need a yes. */
  outsideText?: () => string | null;
  /** The tenant's `tool_input` guardrails for this turn's calls. */
  guardInput?: ToolInputGuard;
  /** The turn's model alias: whether messages the tools add may carry images, and tools needing vision may run. */
  model?: TurnModel;
  /** Where a message's file ids are read (the conversation's attachments); absent: a file id is refused. */
  files?: ConversationFiles;
  /** What the turn's added messages may still carry (shared by its rounds). */
  allowance?: AddedAllowance;
};

/**
 * Runs a round's calls, at most `maxConcurrentTools` at once, yielding events as each finishes; then appends
 * one result per call to `messages` in call order (`cancelled` for calls Stop cut short) and their trace entries
 * to `trace`, then the messages the calls added (in call order), after every result: providers want a call's
 * results right after it. On Stop it stops waiting at once: calls still running get their abort.
 */
export async function* runRoundTools(
  calls: ToolCall[],
  round: RoundTools,
  messages: StoredMessage[],
  trace: ToolTraceEntry[],
): AsyncGenerator<AgentEvent> {
  const outcomes = yield* runConcurrently(calls, round, messages);
  for (const [i, call] of calls.entries()) {
    const outcome = outcomes[i];
    messages.push(outcome ? toolMessage(call, outcome) : cancelledResult(call.id, call.name));
    if (outcome) trace.push(outcome.trace);
  }
  for (const [i, call] of calls.entries()) {
    const added = outcomes[i]?.added;
    if (added) messages.push(addedMessage(call, added));
  }
}

async function* runConcurrently(
  calls: ToolCall[],
  round: RoundTools,
  messages: StoredMessage[],
): AsyncGenerator<AgentEvent, (ToolOutcome | undefined)[]> {
  const { limits, signal } = round;
  const outcomes: (ToolOutcome | undefined)[] = new Array(calls.length);
  // Events the running calls produce before they finish (a message a tool adds, a confirmation asked), streamed
  // while the round waits: `wake` ends the wait so they go out at once.
  const emitted: AgentEvent[] = [];
  let wake = () => {};
  let woken = new Promise<"woken">((resolve) => {
    wake = () => resolve("woken");
  });
  const live = (event: AgentEvent) => {
    emitted.push(event);
    wake();
  };
  const repeated = calls.map((call) => {
    const key = `${call.name}\n${JSON.stringify(call.args)}`;
    round.repeats.count = key === round.repeats.key ? round.repeats.count + 1 : 1;
    round.repeats.key = key;
    return round.repeats.count >= limits.maxRepeatedCalls;
  });
  const context = (call: ToolCall, callSignal: AbortSignal): ToolCallContext => ({
    ...round.caller,
    signal: callSignal,
    emit: async (message) => {
      messages.push({
        role: "assistant",
        content: message.content,
        data: { ...message.data, toolCallId: call.id },
        kind: "display",
      });
      live({ type: "message", content: message.content, data: message.data });
    },
    addUsage: round.addUsage,
    noteUse: round.noteUse,
  });
  const options = {
    tools: round.tools,
    mayCall: round.mayCall,
    maxConcurrent: limits.maxConcurrentTools,
    defaultTimeoutMs: limits.toolTimeoutMs,
    context,
    signal,
    confirm: round.confirmations ? confirmGate(round, round.confirmations, live) : undefined,
    outsideText: round.outsideText,
    guardInput: round.guardInput,
    model: round.model,
    allowance: round.allowance,
    addMessage: (call: ToolCall, message: unknown) =>
      resolveToolMessage(
        message,
        {
          tenantId: round.caller.tenantId,
          userId: round.caller.userId,
          conversationId: round.caller.conversationId,
          model: round.model,
          files: round.files,
        },
        call.name,
      ),
  };
  const stopped = new Promise<"stopped">((resolve) => {
    if (signal.aborted) resolve("stopped");
    signal.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  const running = new Map<number, Promise<{ index: number; outcome: ToolOutcome }>>();
  let next = 0;
  while (next < calls.length || running.size) {
    while (running.size < limits.maxConcurrentTools && next < calls.length && !signal.aborted) {
      const index = next++;
      const call = calls[index]!;
      const pending = repeated[index]
        ? Promise.resolve(repeatedOutcome(call, limits.maxRepeatedCalls))
        : runToolCall(call, options);
      running.set(
        index,
        pending.then((outcome) => ({ index, outcome })),
      );
    }
    if (!running.size) break;
    const first = await Promise.race([...running.values(), stopped, woken]);
    if (first === "stopped") break;
    if (first === "woken") {
      woken = new Promise((resolve) => {
        wake = () => resolve("woken");
      });
      yield* emitted.splice(0);
      continue;
    }
    running.delete(first.index);
    outcomes[first.index] = first.outcome;
    if (repeated[first.index]) {
      yield {
        type: "notice",
        code: "repeated_call",
        message: `${calls[first.index]!.name} was called with the same arguments ${limits.maxRepeatedCalls} times in a row.`,
      };
    }
    yield* emitted.splice(0);
    yield* first.outcome.events;
  }
  return outcomes;
}

/**
 * Asks the turn's user about a call: the `confirm` event goes out while the call waits (its arguments masked, as
 * the audit keeps them), and the decision (not a cancelled wait: Stop has its own event) as `confirmation`.
 */
function confirmGate(
  round: RoundTools,
  confirmations: Confirmations,
  live: (e: AgentEvent) => void,
): ConfirmGate {
  const { turnId, tenantId, userId } = round.caller;
  return async (call, args, signal, reason) => {
    const pending = confirmations.ask({ turnId, callId: call.id, tenantId, userId }, signal);
    live({
      type: "confirm",
      callId: call.id,
      name: call.name,
      args: maskSecrets(args && typeof args === "object" ? (args as Record<string, unknown>) : {}),
      expiresAt: pending.expiresAt.toISOString(),
      timeoutMs: pending.timeoutMs,
      ...(reason ? { reason } : {}),
    });
    const outcome = await pending.outcome;
    if (outcome.decision !== "cancelled")
      live({
        type: "confirmation",
        callId: call.id,
        name: call.name,
        decision: outcome.decision,
        by: outcome.by,
        waitedMs: outcome.waitedMs,
      });
    return { ...outcome, timeoutMs: pending.timeoutMs };
  };
}

/**
 * The tool's result for the model; its cards and the user's decision on it ride in the stored message's data, for
 * the drawer's history.
 */
function toolMessage(call: ToolCall, { content, cards, confirmation }: ToolOutcome): StoredMessage {
  const data = { ...(cards ? { cards } : {}), ...(confirmation ? { confirmation } : {}) };
  return {
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content,
    ...(Object.keys(data).length ? { data } : {}),
  };
}

function repeatedOutcome(call: ToolCall, times: number): ToolOutcome {
  const content = JSON.stringify({
    error: `you called ${call.name} with the same arguments ${times} times in a row; do not repeat it, use the results you already have`,
  });
  return {
    content,
    ok: false,
    trace: { callId: call.id, name: call.name, durationMs: 0, ok: false, error: "repeated call" },
    events: [
      { type: "tool_result", callId: call.id, name: call.name, ok: false, result: content, durationMs: 0 },
    ],
  };
}

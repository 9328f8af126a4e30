import type { ToolCall } from "@/lib/gateway/types";
import { cancelledResult, type StoredMessage } from "@/lib/turns/conversation";
import type { AgentEvent, ToolTraceEntry } from "@/lib/turns/events";
import { runToolCall, type ToolOutcome } from "./run-tools";
import type { Tool, ToolContext } from "./tool";

/** The same tool with the same arguments, counted across the rounds of one turn. */
export type RepeatCounter = { key: string; count: number };

export type RoundTools = {
  tools: Map<string, Tool>;
  mayCall: (tool: Tool) => boolean;
  /** Who calls and for which turn; each call adds its own signal, `emit` and `addUsage`. */
  caller: Omit<ToolContext, "signal" | "emit" | "addUsage">;
  addUsage: ToolContext["addUsage"];
  repeats: RepeatCounter;
  signal: AbortSignal;
  limits: { maxConcurrentTools: number; toolTimeoutMs: number; maxRepeatedCalls: number };
};

/**
 * Runs a round's calls, at most `maxConcurrentTools` at once, yielding events as each finishes; then appends
 * one result per call to `messages` in call order (`cancelled` for calls Stop cut short) and their trace entries
 * to `trace`. On Stop it stops waiting at once: calls still running get their abort.
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
}

async function* runConcurrently(
  calls: ToolCall[],
  round: RoundTools,
  messages: StoredMessage[],
): AsyncGenerator<AgentEvent, (ToolOutcome | undefined)[]> {
  const { limits, signal } = round;
  const outcomes: (ToolOutcome | undefined)[] = new Array(calls.length);
  const emitted: AgentEvent[] = [];
  const repeated = calls.map((call) => {
    const key = `${call.name}\n${JSON.stringify(call.args)}`;
    round.repeats.count = key === round.repeats.key ? round.repeats.count + 1 : 1;
    round.repeats.key = key;
    return round.repeats.count >= limits.maxRepeatedCalls;
  });
  const context = (call: ToolCall, callSignal: AbortSignal): ToolContext => ({
    ...round.caller,
    signal: callSignal,
    emit: async (message) => {
      messages.push({
        role: "assistant",
        content: message.content,
        data: { ...message.data, toolCallId: call.id },
        kind: "display",
      });
      emitted.push({ type: "message", content: message.content, data: message.data });
    },
    addUsage: round.addUsage,
  });
  const options = {
    tools: round.tools,
    mayCall: round.mayCall,
    maxConcurrent: limits.maxConcurrentTools,
    defaultTimeoutMs: limits.toolTimeoutMs,
    context,
    signal,
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
    const first = await Promise.race([...running.values(), stopped]);
    if (first === "stopped") break;
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

/** The tool's result for the model; its cards ride in the stored message's data, for the drawer's history. */
function toolMessage(call: ToolCall, { content, cards }: ToolOutcome): StoredMessage {
  return {
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content,
    ...(cards ? { data: { cards } } : {}),
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

import type { MessageInputs } from "@/features/drawer/contracts";
import type { TurnSummary } from "@/lib/turns/events";
import { cardsOf } from "./cards/format";
import { hasInputs, inputsOf } from "./context-chips";
import type {
  AddedMessageSummary,
  AgentEvent,
  ChatTurn,
  FooterInfo,
  HistoryMessage,
  LedgerTurn,
  ToolCardState,
  TurnPart,
} from "./types";

// Pure state transitions for the chat: the hook owns the state, these say what each event does to it.

let counter = 0;
export const localKey = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export function newTurn(message: string, inputs?: MessageInputs): ChatTurn {
  const sent = hasInputs(inputs) ? { inputs } : {};
  return {
    key: localKey("turn"),
    turnId: null,
    message,
    ...sent,
    parts: [{ type: "user", key: localKey("user"), text: message, ...sent }],
    phase: "streaming",
  };
}

/** A tool result is an error when it is a JSON object with an `error` field (the loop's convention). */
export function toolStatusOf(result: string): ToolCardState["status"] {
  try {
    const parsed: unknown = JSON.parse(result);
    if (parsed && typeof parsed === "object" && "error" in parsed) {
      return (parsed as { error: unknown }).error === "cancelled" ? "cancelled" : "error";
    }
  } catch {
    // plain text is a successful result
  }
  return "ok";
}

export function footerFromSummary(summary: TurnSummary): FooterInfo {
  return {
    servedModel: summary.servedModel,
    inputTokens: summary.usage.inputTokens,
    cachedInputTokens: summary.usage.cachedInputTokens,
    outputTokens: summary.usage.outputTokens,
    cost: summary.cost,
    latencyMs: summary.latencyMs,
    status: summary.status,
  };
}

export function footerFromLedger(row: LedgerTurn): FooterInfo {
  return {
    servedModel: row.servedModel,
    inputTokens: row.inputTokens,
    cachedInputTokens: row.cachedInputTokens,
    outputTokens: row.outputTokens,
    cost: row.cost,
    latencyMs: row.latencyMs,
    status: row.status,
  };
}

const updateTool = (parts: TurnPart[], callId: string, change: (tool: ToolCardState) => ToolCardState) =>
  parts.map((p) => (p.type === "tool" && p.tool.callId === callId ? { ...p, tool: change(p.tool) } : p));

/**
 * Tool calls still running when a turn ends never got a result: they were cancelled, and so was any question
 * still waiting for the user's answer.
 */
const settleTools = (parts: TurnPart[]) =>
  parts.map((p) =>
    p.type === "tool" && p.tool.status === "running"
      ? {
          ...p,
          tool: {
            ...p.tool,
            status: "cancelled" as const,
            ...(p.tool.confirmation?.state === "pending"
              ? { confirmation: { state: "decided" as const, decision: "cancelled" as const } }
              : {}),
          },
        }
      : p,
  );

/** Whether the turn only waits for the user: a call asks for approval and nothing else runs meanwhile. */
export function waitsForUser(turn: ChatTurn): boolean {
  const running = turn.parts.flatMap((p) =>
    p.type === "tool" && p.tool.status === "running" ? [p.tool] : [],
  );
  return running.length > 0 && running.every((tool) => tool.confirmation?.state === "pending");
}

const DECISIONS = new Set<unknown>(["approve", "deny", "timeout"]);

/** The decision stored with a tool result (`data.confirmation`), for a turn loaded from history. */
export function confirmationOf(data: Record<string, unknown> | undefined): ToolCardState["confirmation"] {
  const decision = data?.confirmation;
  return DECISIONS.has(decision)
    ? { state: "decided", decision: decision as "approve" | "deny" | "timeout" }
    : undefined;
}

export function applyEvent(turn: ChatTurn, event: AgentEvent): ChatTurn {
  switch (event.type) {
    case "turn":
      return { ...turn, turnId: event.turnId };
    case "text": {
      const last = turn.parts[turn.parts.length - 1];
      // Text after a tool card starts a new bubble, so the answer reads in the order it happened.
      if (last?.type === "text") {
        return { ...turn, parts: [...turn.parts.slice(0, -1), { ...last, text: last.text + event.delta }] };
      }
      return { ...turn, parts: [...turn.parts, { type: "text", key: localKey("text"), text: event.delta }] };
    }
    case "tool_call":
      return {
        ...turn,
        parts: [
          ...turn.parts,
          {
            type: "tool",
            key: localKey("tool"),
            tool: { callId: event.call.id, name: event.call.name, args: event.call.args, status: "running" },
          },
        ],
      };
    case "tool_result": {
      const status = event.ok ? "ok" : toolStatusOf(event.result) === "cancelled" ? "cancelled" : "error";
      const known = turn.parts.some((p) => p.type === "tool" && p.tool.callId === event.callId);
      const done = {
        result: event.result,
        durationMs: event.durationMs,
        status,
        ...(event.cards?.length ? { cards: event.cards } : {}),
        ...(event.message ? { message: event.message } : {}),
      } as const;
      return known
        ? { ...turn, parts: updateTool(turn.parts, event.callId, (tool) => ({ ...tool, ...done })) }
        : {
            ...turn,
            parts: [
              ...turn.parts,
              {
                type: "tool",
                key: localKey("tool"),
                tool: { callId: event.callId, name: event.name, args: {}, ...done },
              },
            ],
          };
    }
    case "notice":
      return {
        ...turn,
        parts: [
          ...turn.parts,
          { type: "notice", key: localKey("notice"), code: event.code, message: event.message },
        ],
      };
    case "guardrail":
      return {
        ...turn,
        parts: [
          ...turn.parts,
          {
            type: "notice",
            key: localKey("notice"),
            // A soft budget only warns; everything else the pipeline or a tool guard says is a refusal.
            code:
              event.code === "budget_soft" || event.code === "budget_overrun"
                ? "budget_warning"
                : "guardrail",
            message: event.message,
          },
        ],
      };
    case "message":
      return {
        ...turn,
        parts: [...turn.parts, { type: "display", key: localKey("display"), content: event.content }],
      };
    case "note": {
      // The turn handed the model this notice before the user's message: it shows there, as a reload shows it.
      const note = { type: "note", key: localKey("note"), text: event.text } as const;
      const user = turn.parts.findIndex((p) => p.type === "user");
      const at = user === -1 ? turn.parts.length : user;
      return { ...turn, parts: [...turn.parts.slice(0, at), note, ...turn.parts.slice(at)] };
    }
    case "confirm":
      // The countdown runs on this browser's clock from the limit the server gave, whatever the clocks say.
      return {
        ...turn,
        parts: updateTool(turn.parts, event.callId, (tool) => ({
          ...tool,
          confirmation: {
            state: "pending",
            deadline: Date.now() + event.timeoutMs,
            timeoutMs: event.timeoutMs,
            ...(event.reason ? { sendsTo: event.reason.to } : {}),
          },
        })),
      };
    case "confirmation":
      return {
        ...turn,
        parts: updateTool(turn.parts, event.callId, (tool) => ({
          ...tool,
          confirmation: { state: "decided", decision: event.decision },
        })),
      };
    case "error":
      return { ...turn, error: { kind: "failed", message: event.message } };
    case "done": {
      const { summary } = event;
      const error =
        turn.error ??
        (summary.status === "failed"
          ? { kind: "failed" as const, message: summary.error?.message ?? "the turn failed" }
          : undefined);
      return {
        ...turn,
        turnId: summary.turnId,
        phase: "done",
        parts: settleTools(turn.parts),
        footer: footerFromSummary(summary),
        // A turn that just ended has no vote yet.
        feedback: turn.feedback ?? null,
        error,
      };
    }
  }
}

/** Ends a turn that never got its `done`: Stop that aborted the request, or a connection that was cut. */
export function endTurn(turn: ChatTurn, outcome: { stopped: true } | { error: ChatTurn["error"] }): ChatTurn {
  if (turn.phase === "done") return turn;
  return {
    ...turn,
    phase: "done",
    parts: settleTools(turn.parts),
    ...("stopped" in outcome ? { localStatus: "stopped" as const } : { error: turn.error ?? outcome.error }),
  };
}

/** Rebuilds the turns of a stored conversation: messages grouped by turn, tool results joined to calls. */
export function turnsFromHistory(messages: HistoryMessage[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  let current: ChatTurn | undefined;
  for (const m of messages) {
    if (!current || m.turnId !== current.turnId) {
      current = {
        key: m.turnId ?? localKey("turn"),
        turnId: m.turnId,
        message: null,
        parts: [],
        phase: "done",
      };
      turns.push(current);
    }
    const key = m.id;
    if (m.role === "user" && m.kind === "notification")
      current.parts.push({ type: "note", key, text: m.content });
    else if (m.role === "user" && m.kind === "tool_message") {
      const added = addedMessageOf(m);
      if (added)
        current.parts = updateTool(current.parts, added.callId, (tool) => ({
          ...tool,
          message: added.message,
        }));
    } else if (m.role === "user") {
      const inputs = inputsOf(m.data);
      const sent = hasInputs(inputs) ? { inputs } : {};
      current.parts.push({ type: "user", key, text: m.content, ...sent });
      current.message = m.content;
      if (hasInputs(inputs)) current.inputs = inputs;
    } else if (m.role === "assistant" && m.kind === "display") {
      current.parts.push({ type: "display", key, content: m.content });
    } else if (m.role === "assistant") {
      if (m.content.trim()) current.parts.push({ type: "text", key, text: m.content });
      for (const call of m.toolCalls ?? []) {
        current.parts.push({
          type: "tool",
          key: `${key}-${call.id}`,
          tool: { callId: call.id, name: call.name, args: call.args, status: "cancelled" },
        });
      }
    } else if (m.role === "tool" && m.toolCallId) {
      const cards = cardsOf(m.data);
      const confirmation = confirmationOf(m.data);
      const result = {
        result: m.content,
        status: toolStatusOf(m.content),
        ...(cards.length ? { cards } : {}),
        ...(confirmation ? { confirmation } : {}),
      };
      current.parts = updateTool(current.parts, m.toolCallId, (tool) => ({ ...tool, ...result }));
    }
  }
  return turns.filter((t) => t.parts.length);
}

/** The call a stored tool message belongs to and what it showed the model (its text, its images described). */
function addedMessageOf(m: HistoryMessage): { callId: string; message: AddedMessageSummary } | null {
  const callId = m.data?.toolCallId;
  if (typeof callId !== "string") return null;
  const stored: unknown[] = Array.isArray(m.data?.images) ? m.data.images : [];
  const images = stored.filter(
    (i): i is AddedMessageSummary["images"][number] =>
      typeof i === "object" && i !== null && typeof (i as { type?: unknown }).type === "string",
  );
  return { callId, message: { text: m.content, images } };
}

/** Adds what the ledger knows to a turn loaded from history: the footer and each tool's duration. */
export function withLedger(turn: ChatTurn, row: LedgerTurn): ChatTurn {
  const unused = [...row.toolTrace];
  const parts = turn.parts.map((p) => {
    if (p.type !== "tool" || p.tool.durationMs !== undefined) return p;
    // Older rows have no call id in the trace; calls of one name run in call order, so order matches.
    const index = unused.findIndex((e) => (e.callId ? e.callId === p.tool.callId : e.name === p.tool.name));
    if (index === -1) return p;
    const [entry] = unused.splice(index, 1);
    return { ...p, tool: { ...p.tool, durationMs: entry!.durationMs } };
  });
  return { ...turn, parts, footer: footerFromLedger(row) };
}

/**
 * The turn an edit or a regenerate would replace: the last one, once it is stored (it has an id and the user's
 * words) and finished. A turn that never reached the server (no id) cannot be replaced; Retry sends it.
 */
export function lastReplaceable(turns: ChatTurn[]): ChatTurn | undefined {
  const last = turns[turns.length - 1];
  return last?.turnId && last.message !== null && last.phase === "done" ? last : undefined;
}

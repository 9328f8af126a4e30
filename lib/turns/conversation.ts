import type { ChatMessage } from "@/lib/gateway/types";

/** A message as the conversation keeps it: the model's messages, plus display-only ones and notifications. */
export type StoredMessage = ChatMessage & {
  /**
   * display: shown to people, never sent to the model; notification: a queued task_result or schedule note;
   * tool_message: a user-role message a tool call added for the model (`data.toolCallId` names the call).
   */
  kind?: "display" | "notification" | "tool_message";
  data?: Record<string, unknown>;
};

export type Notification = { type: string; body: string };

/** A tool call from the conversation's history, with its result, for tool sets that rebuild their state. */
export type StoredToolCall = { name: string; args: Record<string, unknown>; result: string };

/** Where conversations live. The governance store implements it on PostgreSQL; tests use the in-memory one. */
export interface ConversationStore {
  history(tenantId: string, conversationId: string): Promise<StoredMessage[]>;
  append(tenantId: string, conversationId: string, turnId: string, messages: StoredMessage[]): Promise<void>;
  /**
   * Queues a message for the model's next turn; pending ones of the same type merge into one at the tail
   * (`mergeNotification`), atomically however many are queued at once.
   */
  queueNotification(tenantId: string, conversationId: string, notification: Notification): Promise<void>;
  takeNotifications(tenantId: string, conversationId: string): Promise<Notification[]>;
}

export class InMemoryConversationStore implements ConversationStore {
  readonly messages = new Map<string, (StoredMessage & { turnId: string })[]>();
  readonly pending = new Map<string, Notification[]>();

  async history(tenantId: string, conversationId: string): Promise<StoredMessage[]> {
    return (this.messages.get(`${tenantId}/${conversationId}`) ?? []).map(({ turnId: _t, ...m }) => m);
  }

  async append(
    tenantId: string,
    conversationId: string,
    turnId: string,
    messages: StoredMessage[],
  ): Promise<void> {
    const key = `${tenantId}/${conversationId}`;
    this.messages.set(key, [...(this.messages.get(key) ?? []), ...messages.map((m) => ({ ...m, turnId }))]);
  }

  async queueNotification(tenantId: string, conversationId: string, n: Notification): Promise<void> {
    const key = `${tenantId}/${conversationId}`;
    this.pending.set(key, mergeNotification(this.pending.get(key) ?? [], n));
  }

  async takeNotifications(tenantId: string, conversationId: string): Promise<Notification[]> {
    const key = `${tenantId}/${conversationId}`;
    const taken = this.pending.get(key) ?? [];
    this.pending.delete(key);
    return taken;
  }
}

/**
 * Notifications stack by type: a new one joins the pending one of its type (oldest text first) and the stack
 * moves to the tail of the queue, so a busy conversation gets one message per type and the newest result is
 * never stuck behind stale ones.
 */
export function mergeNotification(queue: Notification[], n: Notification): Notification[] {
  const same = queue.filter((q) => q.type === n.type);
  if (!same.length) return [...queue, n];
  const body = stackNotificationBodies([...same.map((q) => q.body), n.body]);
  return [...queue.filter((q) => q.type !== n.type), { type: n.type, body }];
}

/** A stack of notifications is bounded: a conversation nobody opens does not grow one without end. */
export const MAX_NOTIFICATION_STACK = 16_000;

const DROPPED = "(older notices dropped: too many pending)";

/**
 * Bodies of one type as one message, oldest first. Past the bound the oldest text goes: the stack keeps its tail
 * from the first whole notice in it (an opening tag such as `<TASK_RESULT …>`, else a line) and says so.
 */
export function stackNotificationBodies(bodies: string[]): string {
  const joined = bodies.join("\n");
  if (joined.length <= MAX_NOTIFICATION_STACK) return joined;
  const tail = joined.slice(joined.length - MAX_NOTIFICATION_STACK + DROPPED.length + 1);
  let tagged = tail.indexOf("\n<");
  while (tagged >= 0 && tail[tagged + 2] === "/") tagged = tail.indexOf("\n<", tagged + 2);
  const start = tagged >= 0 ? tagged + 1 : tail.indexOf("\n") + 1;
  return `${DROPPED}\n${tail.slice(start)}`;
}

/** The tool calls of a history with their results, for tool sets that rebuild their state from it. */
export function storedToolCalls(history: StoredMessage[]): StoredToolCall[] {
  const results = new Map<string, string>();
  for (const m of history) if (m.role === "tool") results.set(m.toolCallId, m.content);
  return history.flatMap((m) =>
    m.role === "assistant"
      ? (m.toolCalls ?? []).map((c) => ({ name: c.name, args: c.args, result: results.get(c.id) ?? "" }))
      : [],
  );
}

/**
 * The messages to send a model: display messages dropped, and any tool call left without a result (a crash
 * mid-turn) given a `cancelled` one, because providers reject a history with a dangling tool call. With
 * `earlierTurns`, a user message's attached images (sent with their own turn only) are named with their file ids,
 * so the model can ask to see one again (load_image).
 */
export function modelHistory(
  history: StoredMessage[],
  options: { earlierTurns?: boolean } = {},
): ChatMessage[] {
  const out: ChatMessage[] = [];
  const visible = history.filter((m) => m.kind !== "display");
  for (let i = 0; i < visible.length; i++) {
    const { kind, data, ...m } = visible[i]!;
    const user = m.role === "user" ? withContextBlocks(m, data) : null;
    out.push(
      user && options.earlierTurns && !kind ? withImageNote(user, data) : (user ?? (m as ChatMessage)),
    );
    if (m.role === "assistant" && m.toolCalls?.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < visible.length && visible[j]!.role === "tool"; j++) {
        answered.add((visible[j] as Extract<ChatMessage, { role: "tool" }>).toolCallId);
      }
      const missing = m.toolCalls.filter((c) => !answered.has(c.id));
      // Results must directly follow their call: emit the answered ones, then cancelled ones for the rest.
      let j = i + 1;
      for (; j < visible.length && visible[j]!.role === "tool"; j++) {
        // A tool message's data (its cards) is the drawer's: the model reads the result only.
        const { kind: _tk, data: _td, ...result } = visible[j]!;
        out.push(result as ChatMessage);
      }
      for (const c of missing) out.push(cancelledResult(c.id, c.name));
      i = j - 1;
    }
  }
  return out;
}

/** A user message as the model reads it: the context blocks stored with it (context items, files' text) first. */
function withContextBlocks(
  m: Extract<ChatMessage, { role: "user" }>,
  data: StoredMessage["data"],
): ChatMessage {
  const blocks = data?.contextBlocks;
  if (!Array.isArray(blocks) || !blocks.length) return m;
  return { ...m, content: `${blocks.join("\n\n")}\n\n${m.content}` };
}

/** An earlier user message with the images it had attached named after it: they are not sent again. */
function withImageNote(m: ChatMessage, data: StoredMessage["data"]): ChatMessage {
  const attached = Array.isArray(data?.attachments) ? (data.attachments as unknown[]) : [];
  const images = attached.flatMap((a) => {
    const file = a as { id?: unknown; name?: unknown; type?: unknown } | null;
    return typeof file?.id === "string" && typeof file.type === "string" && file.type.startsWith("image/")
      ? [`${JSON.stringify(String(file.name ?? "image"))} (file_id ${file.id})`]
      : [];
  });
  if (!images.length) return m;
  return {
    ...m,
    content: `${m.content}\n\n[Images attached to this message, not shown again: ${images.join(", ")}]`,
  };
}

export const CANCELLED = JSON.stringify({ error: "cancelled" });
export const cancelledResult = (toolCallId: string, name: string): ChatMessage => ({
  role: "tool",
  toolCallId,
  name,
  content: CANCELLED,
});

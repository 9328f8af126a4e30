import "server-only";
import { and, asc, desc, eq, exists, ilike, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "@/db";
import {
  agentSchedule,
  agentTask,
  type MessageParts,
  type SysAgentSession,
  sysAgentMessage,
  sysAgentNotification,
  sysAgentSession,
  sysAgentTurn,
} from "@/db/schema";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { cleanRow, cleanRows, cleanText } from "@/lib/core/text/clean-text";
import { plainTitle } from "@/lib/core/text/plain-title";
import {
  type ConversationStore,
  type Notification,
  type StoredMessage,
  stackNotificationBodies,
} from "@/lib/turns/conversation";

// Any fixed 32-bit number: the advisory-lock namespace of a conversation's pending notifications.
const NOTIFICATION_LOCK = 727_100_003;

/** A conversation's title: the first line of its first message as plain text (no markdown), shortened. */
export function titleFrom(message: string): string {
  return plainTitle(message) || "New conversation";
}

export type ConversationOwner = { tenantId: string; userId: string };

export async function createConversation(
  db: Database,
  owner: ConversationOwner & { title?: string; model?: string },
): Promise<SysAgentSession> {
  const [row] = await db
    .insert(sysAgentSession)
    .values(
      cleanRow({
        tenantId: owner.tenantId,
        userId: owner.userId,
        title: owner.title ?? "New conversation",
        model: owner.model,
      }),
    )
    .returning();
  return row!;
}

/** The user's own conversation in this tenant; anyone else's (or another tenant's) is "not found". */
export async function getConversationOrThrow(
  db: Database,
  owner: ConversationOwner & { id: string },
): Promise<SysAgentSession> {
  const [row] = await db
    .select()
    .from(sysAgentSession)
    .where(
      and(
        eq(sysAgentSession.tenantId, owner.tenantId),
        eq(sysAgentSession.userId, owner.userId),
        eq(sysAgentSession.id, owner.id),
      ),
    )
    .limit(1);
  if (!row) throw notFound("conversation");
  return row;
}

/** `%`, `_` and `\` match themselves in a search, not as LIKE wildcards. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Newest first, keyset-paginated by updated time. `search` keeps the conversations whose title or any message
 * the user can see (their own words and the answers, not superseded ones) contains it, case-insensitively.
 */
export async function listConversations(
  db: Database,
  owner: ConversationOwner & { limit?: number; before?: Date; search?: string },
): Promise<SysAgentSession[]> {
  const scope = and(eq(sysAgentSession.tenantId, owner.tenantId), eq(sysAgentSession.userId, owner.userId));
  const search = owner.search?.trim();
  const pattern = search ? likePattern(search) : null;
  const matches = pattern
    ? or(
        ilike(sysAgentSession.title, pattern),
        exists(
          db
            .select({ one: sql`1` })
            .from(sysAgentMessage)
            .where(
              and(
                eq(sysAgentMessage.tenantId, owner.tenantId),
                eq(sysAgentMessage.sessionId, sysAgentSession.id),
                inArray(sysAgentMessage.role, ["user", "assistant"]),
                isNull(sysAgentMessage.supersededAt),
                sql`coalesce(${sysAgentMessage.parts}->>'kind', '') not in ('notification', 'tool_message')`,
                ilike(sql`${sysAgentMessage.parts}->>'content'`, pattern),
              ),
            ),
        ),
      )
    : undefined;
  return db
    .select()
    .from(sysAgentSession)
    .where(and(scope, owner.before ? lt(sysAgentSession.updatedAt, owner.before) : undefined, matches))
    .orderBy(desc(sysAgentSession.updatedAt))
    .limit(Math.min(owner.limit ?? 50, 200));
}

export async function renameConversation(
  db: Database,
  owner: ConversationOwner & { id: string; title: string },
) {
  const [row] = await db
    .update(sysAgentSession)
    .set({ title: cleanText(owner.title.trim().slice(0, 200)) || "New conversation" })
    .where(
      and(
        eq(sysAgentSession.tenantId, owner.tenantId),
        eq(sysAgentSession.userId, owner.userId),
        eq(sysAgentSession.id, owner.id),
      ),
    )
    .returning();
  if (!row) throw notFound("conversation");
  return row;
}

/** Deletes the conversation and its messages; the ledger and the audit trail keep their rows. */
export async function deleteConversation(
  db: Database,
  owner: ConversationOwner & { id: string },
): Promise<void> {
  const deleted = await db
    .delete(sysAgentSession)
    .where(
      and(
        eq(sysAgentSession.tenantId, owner.tenantId),
        eq(sysAgentSession.userId, owner.userId),
        eq(sysAgentSession.id, owner.id),
      ),
    )
    .returning({ id: sysAgentSession.id });
  if (!deleted.length) throw notFound("conversation");
  await db
    .delete(sysAgentNotification)
    .where(
      and(eq(sysAgentNotification.tenantId, owner.tenantId), eq(sysAgentNotification.sessionId, owner.id)),
    );
  // Its background tasks would otherwise run on and report to a conversation that no longer exists.
  await db
    .update(agentTask)
    .set({ status: "cancelled", leaseOwner: null, leaseUntil: null, finishedAt: new Date() })
    .where(
      and(
        eq(agentTask.tenantId, owner.tenantId),
        eq(agentTask.conversationId, owner.id),
        inArray(agentTask.status, ["queued", "running"]),
      ),
    );
  // Its clock schedules would otherwise keep firing into a conversation that no longer exists.
  await db
    .delete(agentSchedule)
    .where(and(eq(agentSchedule.tenantId, owner.tenantId), eq(agentSchedule.conversationId, owner.id)));
}

/** How many queued notices the drawer is shown at once (they stack by type, so a conversation has few). */
const PENDING_SHOWN = 20;

/** What waits for a conversation's next turn, as the drawer shows it while the conversation is idle. */
export type PendingForConversation = {
  /** Notices queued for the next turn (a background task's result), oldest first; `id` changes when one stacks. */
  notices: { id: number; type: string; body: string; createdAt: Date }[];
  /** Background tasks of the conversation not ended yet (queued or running): more notices may come. */
  tasks: number;
};

/**
 * The notices queued for a conversation's next turn and how many of its background tasks are still going. Read
 * from the database, so a notice queued by a task on any instance shows on the instance the drawer polls.
 */
export async function pendingForConversation(
  db: Database,
  tenantId: string,
  conversationId: string,
): Promise<PendingForConversation> {
  const [notices, [tasks]] = await Promise.all([
    db
      .select({
        id: sysAgentNotification.seq,
        type: sysAgentNotification.type,
        body: sysAgentNotification.body,
        createdAt: sysAgentNotification.createdAt,
      })
      .from(sysAgentNotification)
      .where(
        and(eq(sysAgentNotification.tenantId, tenantId), eq(sysAgentNotification.sessionId, conversationId)),
      )
      .orderBy(asc(sysAgentNotification.seq))
      .limit(PENDING_SHOWN),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(agentTask)
      .where(
        and(
          eq(agentTask.tenantId, tenantId),
          eq(agentTask.conversationId, conversationId),
          inArray(agentTask.status, ["queued", "running"]),
        ),
      ),
  ]);
  return { notices, tasks: Number(tasks?.n ?? 0) };
}

export type ConversationMessage = StoredMessage & { id: string; turnId: string | null; createdAt: Date };

/**
 * The conversation as it stands: superseded messages (replaced by an edit or a regenerate) are left out unless
 * asked for; they stay stored.
 */
export async function conversationMessages(
  db: Database,
  tenantId: string,
  conversationId: string,
  options: { includeSuperseded?: boolean } = {},
): Promise<ConversationMessage[]> {
  const rows = await db
    .select()
    .from(sysAgentMessage)
    .where(
      and(
        eq(sysAgentMessage.tenantId, tenantId),
        eq(sysAgentMessage.sessionId, conversationId),
        options.includeSuperseded ? undefined : isNull(sysAgentMessage.supersededAt),
      ),
    )
    .orderBy(asc(sysAgentMessage.seq));
  return rows.map((r) => ({
    ...toStored(r.role, r.parts),
    id: r.id,
    turnId: r.turnId,
    createdAt: r.createdAt,
  }));
}

/** The turn an edit or a regenerate replaces: its id, and its user message's text and stored data (chips, blocks). */
export type ReplaceableTurn = { turnId: string; message: string; data?: Record<string, unknown> };

/**
 * The turn an edit or a regenerate replaces: the conversation's latest turn with a user message that is not
 * superseded. 409 when there is none, or while that turn is still running.
 */
export async function lastTurnOrThrow(
  db: Database,
  where: { tenantId: string; conversationId: string },
): Promise<ReplaceableTurn> {
  const [last] = await db
    .select({ turnId: sysAgentMessage.turnId, parts: sysAgentMessage.parts })
    .from(sysAgentMessage)
    .where(
      and(
        eq(sysAgentMessage.tenantId, where.tenantId),
        eq(sysAgentMessage.sessionId, where.conversationId),
        eq(sysAgentMessage.role, "user"),
        isNull(sysAgentMessage.supersededAt),
        // The user's own words: not a queued notification, nor a message a tool added (a loaded image).
        sql`coalesce(${sysAgentMessage.parts}->>'kind', '') not in ('notification', 'tool_message')`,
      ),
    )
    .orderBy(desc(sysAgentMessage.seq))
    .limit(1);
  if (!last?.turnId) throw new AppError("conflict", "this conversation has no message to edit or regenerate");
  const [ledger] = await db
    .select({ status: sysAgentTurn.status })
    .from(sysAgentTurn)
    .where(and(eq(sysAgentTurn.tenantId, where.tenantId), eq(sysAgentTurn.id, last.turnId)))
    .limit(1);
  if (ledger?.status === "running")
    throw new AppError("conflict", "the last answer is still running; stop it or wait for it to finish");
  return {
    turnId: last.turnId,
    message: last.parts.content,
    ...(last.parts.data ? { data: last.parts.data } : {}),
  };
}

/**
 * Marks a turn's messages superseded by another turn: they stay stored, leave the model's context and the
 * drawer's view. Notifications the turn carried stay: the model has not answered them anywhere else.
 */
export async function supersedeTurn(
  db: Database,
  where: { tenantId: string; conversationId: string; turnId: string; by: string },
): Promise<number> {
  const rows = await db
    .update(sysAgentMessage)
    .set({ supersededAt: new Date(), supersededBy: where.by })
    .where(
      and(
        eq(sysAgentMessage.tenantId, where.tenantId),
        eq(sysAgentMessage.sessionId, where.conversationId),
        eq(sysAgentMessage.turnId, where.turnId),
        isNull(sysAgentMessage.supersededAt),
        sql`coalesce(${sysAgentMessage.parts}->>'kind', '') <> 'notification'`,
      ),
    )
    .returning({ id: sysAgentMessage.id });
  return rows.length;
}

function toStored(role: "system" | "user" | "assistant" | "tool", p: MessageParts): StoredMessage {
  const extra = { ...(p.kind ? { kind: p.kind } : {}), ...(p.data ? { data: p.data } : {}) };
  switch (role) {
    case "tool":
      return { role, toolCallId: p.toolCallId ?? "", name: p.name ?? "", content: p.content, ...extra };
    case "assistant":
      return {
        role,
        content: p.content,
        ...(p.toolCalls?.length ? { toolCalls: p.toolCalls } : {}),
        ...extra,
      };
    default:
      return { role, content: p.content, ...extra };
  }
}

function toParts(m: StoredMessage): MessageParts {
  const parts: MessageParts = { content: m.content };
  if (m.role === "assistant" && m.toolCalls?.length) parts.toolCalls = m.toolCalls;
  if (m.role === "tool") {
    parts.toolCallId = m.toolCallId;
    parts.name = m.name;
  }
  if (m.kind) parts.kind = m.kind;
  if (m.data) parts.data = m.data;
  return parts;
}

/** The conversation store on PostgreSQL: the one source of truth for message text. */
export class DrizzleConversationStore implements ConversationStore {
  constructor(private readonly database: () => Promise<Database>) {}

  async history(tenantId: string, conversationId: string): Promise<StoredMessage[]> {
    const rows = await conversationMessages(await this.database(), tenantId, conversationId);
    return rows.map(({ id: _i, turnId: _t, createdAt: _c, ...m }) => m);
  }

  async append(
    tenantId: string,
    conversationId: string,
    turnId: string,
    messages: StoredMessage[],
  ): Promise<void> {
    if (!messages.length) return;
    const db = await this.database();
    await db.transaction(async (tx) => {
      // Cleaned (NUL, lone surrogates) so a message's odd bytes never lose the turn's messages.
      await tx.insert(sysAgentMessage).values(
        cleanRows(
          messages.map((m) => ({
            tenantId,
            sessionId: conversationId,
            turnId,
            role: m.role,
            parts: toParts(m),
          })),
        ),
      );
      // The first user message names the conversation; every turn moves it to the top of the list.
      const firstUser = messages.find((m) => m.role === "user" && !m.kind);
      await tx
        .update(sysAgentSession)
        .set({
          updatedAt: new Date(),
          ...(firstUser
            ? {
                title: sql`case when ${sysAgentSession.title} = 'New conversation' then ${cleanText(titleFrom(firstUser.content))} else ${sysAgentSession.title} end`,
              }
            : {}),
        })
        .where(and(eq(sysAgentSession.tenantId, tenantId), eq(sysAgentSession.id, conversationId)));
    });
  }

  async queueNotification(tenantId: string, conversationId: string, queued: Notification): Promise<void> {
    const n = cleanRow(queued);
    const db = await this.database();
    await db.transaction(async (tx) => {
      // One writer per conversation at a time, so two tasks ending together merge instead of both inserting.
      await tx.execute(sql`select pg_advisory_xact_lock(${NOTIFICATION_LOCK}, hashtext(${conversationId}))`);
      // The pending ones of this type leave the queue (a turn taking them meanwhile wins: what it took is not
      // here) and come back as one at the tail with the new one last, as mergeNotification does in memory.
      const stacked = await tx
        .delete(sysAgentNotification)
        .where(
          and(
            eq(sysAgentNotification.tenantId, tenantId),
            eq(sysAgentNotification.sessionId, conversationId),
            eq(sysAgentNotification.type, n.type),
          ),
        )
        .returning({ seq: sysAgentNotification.seq, body: sysAgentNotification.body });
      const body = stackNotificationBodies([
        ...stacked.sort((a, b) => a.seq - b.seq).map((r) => r.body),
        n.body,
      ]);
      await tx
        .insert(sysAgentNotification)
        .values({ tenantId, sessionId: conversationId, type: n.type, body });
    });
  }

  async takeNotifications(tenantId: string, conversationId: string): Promise<Notification[]> {
    const db = await this.database();
    const rows = await db
      .delete(sysAgentNotification)
      .where(
        and(eq(sysAgentNotification.tenantId, tenantId), eq(sysAgentNotification.sessionId, conversationId)),
      )
      .returning();
    return rows.sort((a, b) => a.seq - b.seq).map((r) => ({ type: r.type, body: r.body }));
  }
}

import "server-only";
import { and, asc, desc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/db";
import {
  agentSchedule,
  agentTask,
  type MessageParts,
  type SysAgentSession,
  sysAgentMessage,
  sysAgentNotification,
  sysAgentSession,
} from "@/db/schema";
import { cleanRow, cleanRows, cleanText } from "@/lib/core/clean-text";
import { notFound } from "@/lib/core/errors";
import type { ConversationStore, Notification, StoredMessage } from "@/lib/turns/conversation";

const TITLE_LENGTH = 60;
// Any fixed 32-bit number: the advisory-lock namespace of a conversation's pending notifications.
const NOTIFICATION_LOCK = 727_100_003;

/** A conversation's title: the first line of its first message, shortened. */
export function titleFrom(message: string): string {
  const line = message.trim().split("\n")[0]!.replace(/\s+/g, " ");
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line || "New conversation";
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

/** Newest first, keyset-paginated by updated time. */
export async function listConversations(
  db: Database,
  owner: ConversationOwner & { limit?: number; before?: Date },
): Promise<SysAgentSession[]> {
  const scope = and(eq(sysAgentSession.tenantId, owner.tenantId), eq(sysAgentSession.userId, owner.userId));
  return db
    .select()
    .from(sysAgentSession)
    .where(owner.before ? and(scope, lt(sysAgentSession.updatedAt, owner.before)) : scope)
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

export type ConversationMessage = StoredMessage & { id: string; turnId: string | null; createdAt: Date };

export async function conversationMessages(
  db: Database,
  tenantId: string,
  conversationId: string,
): Promise<ConversationMessage[]> {
  const rows = await db
    .select()
    .from(sysAgentMessage)
    .where(and(eq(sysAgentMessage.tenantId, tenantId), eq(sysAgentMessage.sessionId, conversationId)))
    .orderBy(asc(sysAgentMessage.seq));
  return rows.map((r) => ({
    ...toStored(r.role, r.parts),
    id: r.id,
    turnId: r.turnId,
    createdAt: r.createdAt,
  }));
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
      const [last] = await tx
        .select()
        .from(sysAgentNotification)
        .where(
          and(
            eq(sysAgentNotification.tenantId, tenantId),
            eq(sysAgentNotification.sessionId, conversationId),
          ),
        )
        .orderBy(desc(sysAgentNotification.seq))
        .limit(1)
        .for("update");
      if (last && last.type === n.type) {
        await tx
          .update(sysAgentNotification)
          .set({ body: `${last.body}\n${n.body}` })
          .where(eq(sysAgentNotification.seq, last.seq));
      } else {
        await tx
          .insert(sysAgentNotification)
          .values({ tenantId, sessionId: conversationId, type: n.type, body: n.body });
      }
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

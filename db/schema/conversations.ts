// Conversations: their messages, pending notifications and uploaded files.
import "server-only";
import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { v7 as uuidv7 } from "uuid";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef, userRef } from "./references";

export const sysAgentSession = pgTable(
  "sys_agent_session",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    title: text("title").notNull().default("New conversation"),
    model: text("model"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sys_agent_session_owner_idx").on(t.tenantId, t.userId, t.updatedAt)],
);
export type SysAgentSession = typeof sysAgentSession.$inferSelect;

export type MessageParts = {
  content: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  toolCallId?: string;
  name?: string;
  kind?: "display" | "notification" | "tool_message";
  data?: Record<string, unknown>;
};

export const sysAgentMessage = pgTable(
  "sys_agent_message",
  {
    // A global sequence keeps messages in the order they were appended, across processes.
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    id: uuid("id")
      .notNull()
      .unique()
      .$defaultFn(() => uuidv7()),
    tenantId: uuid("tenant_id").notNull(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => sysAgentSession.id, { onDelete: "cascade" }),
    turnId: uuid("turn_id"),
    role: text("role", { enum: ["system", "user", "assistant", "tool"] }).notNull(),
    parts: jsonb("parts").$type<MessageParts>().notNull(),
    createdAt: createdAt(),
    // Edit-and-resend or regenerate replaced this message: it stays stored (and in the audit) but leaves the
    // conversation the model and the drawer see; superseded_by is the turn that replaced it.
    supersededAt: timestamp("superseded_at", { withTimezone: true }),
    supersededBy: uuid("superseded_by"),
  },
  (t) => [index("sys_agent_message_session_idx").on(t.tenantId, t.sessionId, t.seq)],
);

// Notifications (task results) waiting for the conversation's next turn.
export const sysAgentNotification = pgTable(
  "sys_agent_notification",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid("tenant_id").notNull(),
    sessionId: uuid("session_id").notNull(),
    type: text("type").notNull(),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sys_agent_notification_session_idx").on(t.tenantId, t.sessionId, t.seq)],
);

/** Raw bytes (PostgreSQL `bytea`): a Buffer in, a Buffer out, whichever driver (PGlite answers a Uint8Array). */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (value) => value,
  fromDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});

// Files uploaded for the drawer (POST /api/agent/files): images sent to vision models, and text/PDF whose text
// enters the model's context. Only the uploader uses a file; it counts against the tenant's storage quota, is
// deleted by retention (the tenant's window) and with the conversation it was sent in.
export const agentFiles = pgTable(
  "agent_files",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    // Set when the file is first sent in a conversation; deleting that conversation deletes the file.
    conversationId: uuid("conversation_id").references(() => sysAgentSession.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // The type its content was recognised as (magic bytes for images and PDF), never only the declared one.
    mediaType: text("media_type").notNull(),
    size: integer("size").notNull(),
    bytes: bytea("bytes").notNull(),
    // Text and PDF files: their text, extracted at upload (capped; text_chars is the whole text's length).
    text: text("text"),
    textChars: integer("text_chars"),
    createdAt: createdAt(),
  },
  (t) => [
    // The quota's sum and retention's sweep, per tenant.
    index("agent_files_tenant_created_idx").on(t.tenantId, t.createdAt),
    // Deleting a conversation finds its files (the foreign key's cascade) without a scan.
    index("agent_files_conversation_idx").on(t.conversationId),
  ],
);
export type AgentFile = typeof agentFiles.$inferSelect;

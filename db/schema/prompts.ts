// The prompt store.
import "server-only";
import { sql } from "drizzle-orm";
import { integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { tenantRef } from "./references";

// The prompt store: a tenant's named prompts, each with immutable numbered versions and labels pointing at them.
export const PROMPT_TYPES = ["chat", "text"] as const;
// A skill is kept in the prompt store (versions, labels, history) as a "text" prompt of kind "skill": its text
// is the instructions (Markdown), its files are prompt_file rows of each version. Prompts and skills share the
// tenant's namespace of names.
export const PROMPT_KINDS = ["prompt", "skill"] as const;
export type PromptKind = (typeof PROMPT_KINDS)[number];
export type PromptType = (typeof PROMPT_TYPES)[number];
export type PromptMessage = { role: "system" | "user" | "assistant"; content: string };
export type PromptConfig = {
  /** A skill's one-line description (what the model is told before it loads the skill). */
  description?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  toolSets?: string[];
};

export const prompt = pgTable(
  "prompt",
  {
    id: id(),
    tenantId: tenantRef(),
    // May use "/" for folders ("support/triage").
    name: text("name").notNull(),
    type: text("type", { enum: PROMPT_TYPES }).notNull(),
    kind: text("kind", { enum: PROMPT_KINDS }).notNull().default("prompt"),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    // Nothing is deleted, only archived (hidden from lists; its versions and history stay).
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("prompt_tenant_name_idx").on(t.tenantId, t.name)],
);

// A version is never changed after it is written.
export const promptVersion = pgTable(
  "prompt_version",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    promptId: uuid("prompt_id")
      .notNull()
      .references(() => prompt.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    type: text("type", { enum: PROMPT_TYPES }).notNull(),
    messages: jsonb("messages").$type<PromptMessage[]>(),
    text: text("text"),
    config: jsonb("config").$type<PromptConfig>().notNull().default({}),
    variables: text("variables").array().notNull().default(sql`'{}'::text[]`),
    message: text("message"),
    createdBy: uuid("created_by").notNull(),
    createdByEmail: text("created_by_email").notNull(),
    createdAt: createdAt(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("prompt_version_prompt_version_idx").on(t.promptId, t.version)],
);

// A label points at one version of its prompt; `latest` is kept by the store, `production` is protected.
export const promptLabel = pgTable(
  "prompt_label",
  {
    promptId: uuid("prompt_id")
      .notNull()
      .references(() => prompt.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id").notNull(),
    label: text("label").notNull(),
    version: integer("version").notNull(),
    updatedBy: uuid("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.label] })],
);

// A file that comes with one version of a skill (a reference, a template, a script to read): immutable like
// the version; text only, size-capped by the store.
export const promptFile = pgTable(
  "prompt_file",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    promptVersionId: uuid("prompt_version_id")
      .notNull()
      .references(() => promptVersion.id, { onDelete: "cascade" }),
    // Relative, "/"-separated ("reference/forms.md").
    path: text("path").notNull(),
    content: text("content").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("prompt_file_version_path_idx").on(t.promptVersionId, t.path)],
);

import "server-only";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import {
  membership,
  type PromptConfig,
  type PromptKind,
  type PromptMessage,
  prompt,
  promptFile,
  promptLabel,
  promptVersion,
} from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, forbidden, notFound } from "@/lib/core/errors/app-error";
import { LATEST, PROTECTED_LABEL, type Template, variablesOf } from "./template";

/**
 * The prompt store: a tenant's named prompts with immutable numbered versions and labels that point at one version
 * each. Every version written and every label moved is an admin-change row. Nothing is deleted: a version may be
 * archived unless a label points at it.
 */

/** What the asker may do: every member reads; editors write versions and move labels; admins also move production. */
export type PromptRights = { edit: boolean; admin: boolean };

export type NewVersion = {
  name: string;
  type: "chat" | "text";
  messages?: PromptMessage[];
  text?: string;
  config?: PromptConfig;
  labels?: string[];
  message?: string;
  /** "prompt" unless given; a skill is a text prompt of kind "skill" (see ./skills.ts). */
  kind?: PromptKind;
  /** A skill version's files (checked by the caller: relative paths, text, bounded). */
  files?: { path: string; content: string }[];
};

export type PromptVersionView = {
  name: string;
  version: number;
  type: "chat" | "text";
  messages: PromptMessage[] | null;
  text: string | null;
  config: PromptConfig;
  variables: string[];
  message: string | null;
  createdBy: string;
  createdAt: Date;
  archived: boolean;
  labels: string[];
};

export type PromptSummary = {
  name: string;
  type: "chat" | "text";
  latestVersion: number;
  labels: Record<string, number>;
  updatedAt: Date;
};

/** Which version a caller asks for: a number, a label, or (neither) the `production` label. */
export type VersionRef = { version?: number; label?: string };

/** A template as stored (chat messages or text). */
export const templateOf = (v: {
  type: "chat" | "text";
  messages: PromptMessage[] | null;
  text: string | null;
}): Template =>
  v.type === "chat" ? { type: "chat", messages: v.messages ?? [] } : { type: "text", text: v.text ?? "" };

/** The prompt editors' flag of a member (admins and the super admin are editors by role). */
export async function isPromptEditor(db: Database, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ editor: membership.promptEditor })
    .from(membership)
    .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)));
  return row?.editor ?? false;
}

async function labelsOf(db: Executor, promptId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ label: promptLabel.label, version: promptLabel.version })
    .from(promptLabel)
    .where(eq(promptLabel.promptId, promptId))
    .orderBy(asc(promptLabel.label));
  return Object.fromEntries(rows.map((r) => [r.label, r.version]));
}

const viewOf = (
  name: string,
  row: typeof promptVersion.$inferSelect,
  labels: Record<string, number>,
): PromptVersionView => ({
  name,
  version: row.version,
  type: row.type,
  messages: row.messages ?? null,
  text: row.text ?? null,
  config: row.config,
  variables: row.variables,
  message: row.message,
  createdBy: row.createdByEmail,
  createdAt: row.createdAt,
  archived: row.archivedAt !== null,
  labels: Object.entries(labels)
    .filter(([, v]) => v === row.version)
    .map(([l]) => l),
});

/** What a kind is called in messages: `prompt "x"`, `skill "x"`. */
const nounOf = (kind: PromptKind) => (kind === "skill" ? "skill" : "prompt");

/** The tenant's prompt (or skill) of this name; a name of the other kind is not found here. */
async function findPrompt(db: Executor, tenantId: string, name: string, kind: PromptKind = "prompt") {
  const [row] = await db
    .select()
    .from(prompt)
    .where(and(eq(prompt.tenantId, tenantId), eq(prompt.name, name), eq(prompt.kind, kind)));
  return row;
}

function checkLabelRights(label: string, rights: PromptRights) {
  if (label === LATEST)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { labels: ['"latest" is kept by the store on the newest version; it cannot be set'] },
    });
  if (!rights.edit) throw forbidden("only tenant admins and prompt editors change prompts");
  if (label === PROTECTED_LABEL && !rights.admin)
    throw forbidden(`only tenant admins move the protected "${PROTECTED_LABEL}" label`);
}

/** Points `label` at `version` (in the caller's transaction), with its admin-change row when it moved. */
async function setLabel(
  tx: Executor,
  tenantId: string,
  p: { id: string; name: string },
  label: string,
  version: number,
  actor: Actor,
  before: number | undefined,
) {
  if (before === version) return;
  await tx
    .insert(promptLabel)
    .values({ promptId: p.id, tenantId, label, version, updatedBy: actor.id, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: [promptLabel.promptId, promptLabel.label],
      set: { version, updatedBy: actor.id, updatedAt: new Date() },
    });
  if (label === LATEST) return; // Kept automatically: the version's own change row says it.
  await recordChange(tx, actor, {
    tenantId,
    action: "prompt.label_moved",
    objectType: "prompt",
    objectId: p.name,
    before: before === undefined ? null : { label, version: before },
    after: { label, version },
  });
}

/**
 * Writes the prompt's next version (creating the prompt with version 1), moves `latest` to it and sets the labels
 * asked for. A prompt keeps its type; the name `assistant` (the drawer's system prompt) takes system messages only.
 */
export async function createVersion(
  db: Database,
  tenantId: string,
  input: NewVersion,
  actor: Actor,
  rights: PromptRights,
): Promise<{ name: string; version: number; labels: string[] }> {
  if (!rights.edit) throw forbidden("only tenant admins and prompt editors change prompts");
  const kind = input.kind ?? "prompt";
  const labels = [...new Set(input.labels ?? [])];
  for (const label of labels) checkLabelRights(label, rights);
  const template: Template =
    input.type === "chat"
      ? { type: "chat", messages: input.messages ?? [] }
      : { type: "text", text: input.text ?? "" };
  if (
    input.name === ASSISTANT_PROMPT &&
    template.type === "chat" &&
    template.messages.some((m) => m.role !== "system")
  )
    throw new AppError("validation_failed", "the request is invalid", {
      fields: {
        messages: [
          `the "${ASSISTANT_PROMPT}" prompt is the drawer's system prompt: its messages must be system messages`,
        ],
      },
    });
  return db.transaction(async (tx) => {
    await tx
      .insert(prompt)
      .values({ tenantId, name: input.name, type: input.type, kind, createdBy: actor.id })
      .onConflictDoNothing();
    const [p] = await tx
      .select()
      .from(prompt)
      .where(and(eq(prompt.tenantId, tenantId), eq(prompt.name, input.name)))
      .for("update");
    if (!p) throw new Error("the prompt row vanished");
    // Prompts and skills share the tenant's names: one name is one thing.
    if (p.kind !== kind)
      throw new AppError(
        "conflict",
        `the name "${input.name}" is already taken by a ${nounOf(p.kind)}; choose another name for the ${nounOf(kind)}`,
      );
    // A new version brings an archived skill back.
    if (p.archivedAt) await tx.update(prompt).set({ archivedAt: null }).where(eq(prompt.id, p.id));
    if (p.type !== input.type)
      throw new AppError(
        "conflict",
        `prompt "${input.name}" is a ${p.type} prompt; a new version must be ${p.type} too`,
      );
    const [last] = await tx
      .select({ n: sql<number>`coalesce(max(${promptVersion.version}), 0)::int` })
      .from(promptVersion)
      .where(eq(promptVersion.promptId, p.id));
    const version = Number(last?.n ?? 0) + 1;
    const [row] = await tx
      .insert(promptVersion)
      .values({
        tenantId,
        promptId: p.id,
        version,
        type: input.type,
        messages: template.type === "chat" ? template.messages : null,
        text: template.type === "text" ? template.text : null,
        config: input.config ?? {},
        variables: variablesOf(template),
        message: input.message ?? null,
        createdBy: actor.id,
        createdByEmail: actor.email,
      })
      .returning();
    const files = input.files ?? [];
    if (files.length)
      await tx.insert(promptFile).values(
        files.map((f) => ({
          tenantId,
          promptVersionId: row!.id,
          path: f.path,
          content: f.content,
          bytes: Buffer.byteLength(f.content, "utf8"),
        })),
      );
    await recordChange(tx, actor, {
      tenantId,
      action: "prompt.version_created",
      objectType: "prompt",
      objectId: input.name,
      before: null,
      after: {
        version,
        type: input.type,
        ...(kind === "skill" ? { kind } : {}),
        ...(template.type === "chat" ? { messages: template.messages } : { text: template.text }),
        config: row!.config,
        message: input.message ?? null,
        // The files' paths and sizes; their contents are in prompt_file, immutable with the version.
        ...(files.length
          ? { files: files.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content, "utf8") })) }
          : {}),
      },
    });
    const current = await labelsOf(tx, p.id);
    for (const label of [LATEST, ...labels])
      await setLabel(tx, tenantId, p, label, version, actor, current[label]);
    return { name: input.name, version, labels: [LATEST, ...labels.filter((l) => l !== LATEST)] };
  });
}

/** Moves a label to a version of its prompt (rollback is a move to an older version). */
export async function moveLabel(
  db: Database,
  tenantId: string,
  name: string,
  label: string,
  version: number,
  actor: Actor,
  rights: PromptRights,
  kind: PromptKind = "prompt",
): Promise<{ name: string; label: string; version: number; previous: number | null }> {
  checkLabelRights(label, rights);
  const noun = nounOf(kind);
  return db.transaction(async (tx) => {
    const p = await findPrompt(tx, tenantId, name, kind);
    if (!p) throw notFound(`${noun} "${name}"`);
    const [v] = await tx
      .select({ archivedAt: promptVersion.archivedAt })
      .from(promptVersion)
      .where(and(eq(promptVersion.promptId, p.id), eq(promptVersion.version, version)));
    if (!v) throw notFound(`version ${version} of ${noun} "${name}"`);
    if (v.archivedAt) throw new AppError("conflict", `version ${version} of ${noun} "${name}" is archived`);
    const [before] = await tx
      .select({ version: promptLabel.version })
      .from(promptLabel)
      .where(and(eq(promptLabel.promptId, p.id), eq(promptLabel.label, label)))
      .for("update");
    await setLabel(tx, tenantId, p, label, version, actor, before?.version);
    return { name, label, version, previous: before?.version ?? null };
  });
}

/** Archives a version no label points at (it stays stored and readable, but is no longer offered). */
export async function archiveVersion(
  db: Database,
  tenantId: string,
  name: string,
  version: number,
  actor: Actor,
  rights: PromptRights,
  kind: PromptKind = "prompt",
): Promise<void> {
  if (!rights.edit) throw forbidden("only tenant admins and prompt editors change prompts");
  const noun = nounOf(kind);
  await db.transaction(async (tx) => {
    const p = await findPrompt(tx, tenantId, name, kind);
    if (!p) throw notFound(`${noun} "${name}"`);
    const labels = Object.entries(await labelsOf(tx, p.id)).filter(([, v]) => v === version);
    if (labels.length)
      throw new AppError(
        "conflict",
        `version ${version} of ${noun} "${name}" is labelled ${labels.map(([l]) => l).join(", ")}: move the label first`,
      );
    const [row] = await tx
      .update(promptVersion)
      .set({ archivedAt: new Date() })
      .where(
        and(
          eq(promptVersion.promptId, p.id),
          eq(promptVersion.version, version),
          isNull(promptVersion.archivedAt),
        ),
      )
      .returning({ version: promptVersion.version });
    if (!row) throw notFound(`unarchived version ${version} of ${noun} "${name}"`);
    await recordChange(tx, actor, {
      tenantId,
      action: "prompt.version_archived",
      objectType: "prompt",
      objectId: name,
      before: { version, archived: false },
      after: { version, archived: true },
    });
  });
}

/**
 * The tenant's prompts of one kind (archived ones left out), each with its labels and newest version, by name:
 * the Prompts pages list kind "prompt", the Skills page kind "skill".
 */
export async function listPrompts(
  db: Database,
  tenantId: string,
  kind: PromptKind = "prompt",
): Promise<PromptSummary[]> {
  const rows = await db
    .select({ id: prompt.id, name: prompt.name, type: prompt.type })
    .from(prompt)
    .where(and(eq(prompt.tenantId, tenantId), eq(prompt.kind, kind), isNull(prompt.archivedAt)))
    .orderBy(asc(prompt.name));
  if (!rows.length) return [];
  const labels = await db
    .select({
      promptId: promptLabel.promptId,
      label: promptLabel.label,
      version: promptLabel.version,
      updatedAt: promptLabel.updatedAt,
    })
    .from(promptLabel)
    .where(
      inArray(
        promptLabel.promptId,
        rows.map((r) => r.id),
      ),
    );
  return rows.map((r) => {
    const own = labels.filter((l) => l.promptId === r.id);
    return {
      name: r.name,
      type: r.type,
      latestVersion: own.find((l) => l.label === LATEST)?.version ?? 0,
      labels: Object.fromEntries(own.map((l) => [l.label, l.version])),
      updatedAt: new Date(Math.max(...own.map((l) => l.updatedAt.getTime()))),
    };
  });
}

/** One prompt's versions, newest first, and its labels. */
export async function promptVersions(
  db: Database,
  tenantId: string,
  name: string,
  kind: PromptKind = "prompt",
): Promise<{
  name: string;
  type: "chat" | "text";
  labels: Record<string, number>;
  versions: PromptVersionView[];
}> {
  const p = await findPrompt(db, tenantId, name, kind);
  if (!p) throw notFound(`${nounOf(kind)} "${name}"`);
  const labels = await labelsOf(db, p.id);
  const rows = await db
    .select()
    .from(promptVersion)
    .where(eq(promptVersion.promptId, p.id))
    .orderBy(desc(promptVersion.version));
  return { name, type: p.type, labels, versions: rows.map((r) => viewOf(name, r, labels)) };
}

/**
 * One version by number or label; neither means `production`. Null when the prompt, the version or the label does
 * not exist in this tenant (callers say which was asked for).
 */
export async function findVersion(
  db: Database,
  tenantId: string,
  name: string,
  ref: VersionRef,
  kind: PromptKind = "prompt",
): Promise<PromptVersionView | null> {
  const p = await findPrompt(db, tenantId, name, kind);
  if (!p) return null;
  const labels = await labelsOf(db, p.id);
  const number = ref.version ?? labels[ref.label ?? PROTECTED_LABEL];
  if (number === undefined) return null;
  const [row] = await db
    .select()
    .from(promptVersion)
    .where(and(eq(promptVersion.promptId, p.id), eq(promptVersion.version, number)));
  return row ? viewOf(name, row, labels) : null;
}

/** What a missing version is called in an error: `prompt "x" version 3`, `prompt "x" label "staging"`. */
export const describeRef = (name: string, ref: VersionRef) =>
  ref.version !== undefined
    ? `prompt "${name}" version ${ref.version}`
    : `prompt "${name}" with label "${ref.label ?? PROTECTED_LABEL}"`;

/** The drawer's system prompt: the tenant's prompt of this name, at its production label. */
export const ASSISTANT_PROMPT = "assistant";

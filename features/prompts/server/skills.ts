import "server-only";
import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "@/db";
import { prompt, promptFile, promptLabel, promptVersion } from "@/db/schema";
import type { SkillLibrary } from "@/lib/agent/toolsets/skills";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, forbidden, notFound } from "@/lib/core/errors/app-error";
import { SKILL_LIMITS, skillNameProblem } from "./skill-rules";
import { createVersion, findVersion, type PromptRights, type VersionRef } from "./store";
import { LATEST, PROTECTED_LABEL } from "./template";
import { readZip } from "./zip";

/**
 * Skills: named instructions the agent loads only when a task needs them (Agent Skills' SKILL.md and its files).
 * A skill is a text prompt of kind "skill" in the prompt store, so it has the prompts' versions, labels, history
 * and archive: its text is the instructions, `config.description` the line the model is told up front, and its
 * files are prompt_file rows of each version.
 */

export type SkillFileInput = { path: string; content: string };
export type NewSkill = {
  name: string;
  description: string;
  instructions: string;
  files?: SkillFileInput[];
  labels?: string[];
  message?: string;
};

const invalid = (field: string, problem: string) =>
  new AppError("validation_failed", `the skill is invalid: ${problem}`, { fields: { [field]: [problem] } });

/** Checks a file's path: relative, "/"-separated, no "..", no NUL, not absolute. Returns it normalised. */
export function checkSkillPath(raw: string): string {
  const path = raw.replace(/^\.\//, "");
  const problem =
    path.length === 0
      ? "a file path is empty"
      : path.length > SKILL_LIMITS.maxPathLength
        ? `the path "${path.slice(0, 60)}…" is longer than ${SKILL_LIMITS.maxPathLength} characters`
        : path.includes("\0")
          ? "a file path contains a NUL character"
          : path.includes("\\")
            ? `"${path}": use "/" between folders, not "\\"`
            : path.startsWith("/") || /^[a-zA-Z]:/.test(path)
              ? `"${path}" is absolute; paths are relative to the skill's folder`
              : path.split("/").some((s) => s === ".." || s === "." || s === "")
                ? `"${path}" has an empty, "." or ".." part`
                : null;
  if (problem) throw invalid("files", problem);
  return path;
}

/** Checks a whole skill before it is stored: name, description, instructions, files (count, sizes, paths). */
export function checkSkill(input: NewSkill): NewSkill {
  const nameProblem = skillNameProblem(input.name);
  if (nameProblem) throw invalid("name", nameProblem);
  const description = input.description.trim();
  if (!description) throw invalid("description", "the description is empty");
  if (description.length > SKILL_LIMITS.maxDescription)
    throw invalid("description", `the description is longer than ${SKILL_LIMITS.maxDescription} characters`);
  if (!input.instructions.trim()) throw invalid("instructions", "the instructions are empty");
  if (input.instructions.includes("\0")) throw invalid("instructions", "the instructions contain a NUL");
  const files = input.files ?? [];
  if (files.length > SKILL_LIMITS.maxFiles)
    throw invalid("files", `${files.length} files; a skill has at most ${SKILL_LIMITS.maxFiles}`);
  let total = Buffer.byteLength(input.instructions, "utf8");
  const seen = new Set<string>();
  const checked = files.map((f) => {
    const path = checkSkillPath(f.path);
    if (path === "SKILL.md")
      throw invalid("files", '"SKILL.md" is the instructions, not a file of the skill');
    if (seen.has(path)) throw invalid("files", `"${path}" is given twice`);
    seen.add(path);
    if (f.content.includes("\0")) throw invalid("files", `"${path}" is not text (it contains NUL bytes)`);
    const bytes = Buffer.byteLength(f.content, "utf8");
    if (bytes > SKILL_LIMITS.maxFileBytes)
      throw invalid("files", `"${path}" is ${bytes} bytes; a file has at most ${SKILL_LIMITS.maxFileBytes}`);
    total += bytes;
    return { path, content: f.content };
  });
  if (total > SKILL_LIMITS.maxTotalBytes)
    throw invalid("files", `the skill is ${total} bytes in all; at most ${SKILL_LIMITS.maxTotalBytes}`);
  return { ...input, description, files: checked };
}

/**
 * SKILL.md's front matter: `---` lines around `key: value` lines, read by hand (no YAML engine, so nothing in
 * the file can run or expand). `name` and `description` are required; other top-level keys (license, metadata…)
 * and their indented lines are kept out. The body after the closing `---` is the instructions.
 */
export function parseSkillMd(text: string): { name: string; description: string; instructions: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---")
    throw invalid("SKILL.md", 'SKILL.md must start with front matter: a "---" line, name: and description:');
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (close < 0) throw invalid("SKILL.md", 'the front matter of SKILL.md has no closing "---" line');
  const keys = new Map<string, string>();
  for (const line of lines.slice(1, close)) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    if (/^\s/.test(line)) continue; // A nested value of a key we do not read (metadata:).
    const colon = line.indexOf(":");
    if (colon <= 0) throw invalid("SKILL.md", `front matter line "${line.slice(0, 60)}" is not "key: value"`);
    const key = line.slice(0, colon).trim();
    if (keys.has(key)) throw invalid("SKILL.md", `front matter key "${key}" is given twice`);
    keys.set(key, unquote(line.slice(colon + 1).trim()));
  }
  const name = keys.get("name") ?? "";
  const description = keys.get("description") ?? "";
  if (!name) throw invalid("SKILL.md", "the front matter of SKILL.md has no name:");
  if (!description) throw invalid("SKILL.md", "the front matter of SKILL.md has no description:");
  if (
    description === "|" ||
    description === ">" ||
    description.startsWith("|-") ||
    description.startsWith(">-")
  )
    throw invalid("SKILL.md", "write the description on one line (block scalars are not read)");
  return {
    name,
    description,
    instructions: lines
      .slice(close + 1)
      .join("\n")
      .trim(),
  };
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0])
    return value.slice(1, -1);
  return value;
}

/**
 * An Agent-Skills folder as files: SKILL.md at its root (or inside one top folder, as a zipped folder has it)
 * and the skill's other files beside it. Returns the skill to store.
 */
export function skillFromFolder(files: SkillFileInput[]): NewSkill {
  const kept = files.filter((f) => !isArchiverJunk(f.path) && !f.path.endsWith("/"));
  const skillMd = kept.filter((f) => f.path === "SKILL.md" || /^[^/]+\/SKILL\.md$/.test(f.path));
  if (skillMd.length !== 1)
    throw invalid(
      "files",
      skillMd.length
        ? "more than one SKILL.md; give one skill's folder"
        : "no SKILL.md at the folder's root (or in its one top folder)",
    );
  const prefix = skillMd[0]!.path.slice(0, -"SKILL.md".length);
  const outside = kept.find((f) => !f.path.startsWith(prefix));
  if (outside) throw invalid("files", `"${outside.path}" is outside the skill's folder`);
  const meta = parseSkillMd(skillMd[0]!.content);
  return checkSkill({
    ...meta,
    files: kept.filter((f) => f !== skillMd[0]).map((f) => ({ ...f, path: f.path.slice(prefix.length) })),
  });
}

/** Archivers' leftovers (macOS resource forks, Finder's files): not part of the skill, and not text. */
const isArchiverJunk = (path: string) =>
  path.startsWith("__MACOSX/") || path === ".DS_Store" || path.endsWith("/.DS_Store");

/** A zip's files as text (UTF-8); a binary file is refused by name. */
export function filesOfZip(zip: Buffer): SkillFileInput[] {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const entries = readZip(zip, {
    maxEntries: SKILL_LIMITS.maxFiles + 1,
    maxFileBytes: SKILL_LIMITS.maxFileBytes,
    maxTotalBytes: SKILL_LIMITS.maxTotalBytes,
  });
  return entries
    .filter((e) => !isArchiverJunk(e.path))
    .map((e) => {
      checkSkillPath(e.path); // Early, before decoding.
      try {
        return { path: e.path, content: decoder.decode(e.bytes) };
      } catch {
        throw invalid("files", `"${e.path}" is not UTF-8 text; a skill's files are text only`);
      }
    });
}

/** Stores a skill's next version (the first creates it); a prompt of the same name is a conflict. */
export async function saveSkill(
  db: Database,
  tenantId: string,
  input: NewSkill,
  actor: Actor,
  rights: PromptRights,
): Promise<{ name: string; version: number; labels: string[] }> {
  const skill = checkSkill(input);
  return createVersion(
    db,
    tenantId,
    {
      name: skill.name,
      type: "text",
      kind: "skill",
      text: skill.instructions,
      config: { description: skill.description },
      files: skill.files,
      labels: skill.labels,
      message: skill.message,
    },
    actor,
    rights,
  );
}

export type SkillFileView = { path: string; bytes: number };
export type LoadedSkill = {
  name: string;
  version: number;
  description: string;
  instructions: string;
  files: SkillFileView[];
};

/** The files of one version (paths and sizes), by path. */
async function filesOf(db: Database, tenantId: string, versionId: string): Promise<SkillFileView[]> {
  return db
    .select({ path: promptFile.path, bytes: promptFile.bytes })
    .from(promptFile)
    .where(and(eq(promptFile.tenantId, tenantId), eq(promptFile.promptVersionId, versionId)))
    .orderBy(asc(promptFile.path));
}

/** The version row a ref names (production, else latest when no ref is given), with its id for the files. */
async function versionRow(db: Database, tenantId: string, name: string, ref: VersionRef, liveOnly = false) {
  const [p] = await db
    .select({ id: prompt.id })
    .from(prompt)
    .where(
      and(
        eq(prompt.tenantId, tenantId),
        eq(prompt.name, name),
        eq(prompt.kind, "skill"),
        liveOnly ? isNull(prompt.archivedAt) : undefined,
      ),
    );
  if (!p) return null;
  let number = ref.version;
  if (number === undefined) {
    const labels = await db
      .select({ label: promptLabel.label, version: promptLabel.version })
      .from(promptLabel)
      .where(eq(promptLabel.promptId, p.id));
    const of = (l: string) => labels.find((x) => x.label === l)?.version;
    number = ref.label ? of(ref.label) : (of(PROTECTED_LABEL) ?? of(LATEST));
  }
  if (number === undefined) return null;
  const [row] = await db
    .select()
    .from(promptVersion)
    .where(and(eq(promptVersion.promptId, p.id), eq(promptVersion.version, number)));
  return row ?? null;
}

/** One skill version with its file list: by number or label, else `production`, else `latest`. */
export async function loadSkill(
  db: Database,
  tenantId: string,
  name: string,
  ref: VersionRef = {},
  liveOnly = false,
): Promise<LoadedSkill | null> {
  const row = await versionRow(db, tenantId, name, ref, liveOnly);
  if (!row) return null;
  return {
    name,
    version: row.version,
    description: row.config.description ?? "",
    instructions: row.text ?? "",
    files: await filesOf(db, tenantId, row.id),
  };
}

/** One file of a skill version (the loaded one unless a version is given); null when it has no such file. */
export async function skillFile(
  db: Database,
  tenantId: string,
  name: string,
  path: string,
  ref: VersionRef = {},
  liveOnly = false,
): Promise<{ name: string; version: number; path: string; content: string; bytes: number } | null> {
  const row = await versionRow(db, tenantId, name, ref, liveOnly);
  if (!row) return null;
  const [file] = await db
    .select({ content: promptFile.content, bytes: promptFile.bytes })
    .from(promptFile)
    .where(
      and(
        eq(promptFile.tenantId, tenantId),
        eq(promptFile.promptVersionId, row.id),
        eq(promptFile.path, path),
      ),
    );
  return file ? { name, version: row.version, path, ...file } : null;
}

/** A skill version as the API shows it: the stored version and its files. */
export async function skillVersion(db: Database, tenantId: string, name: string, ref: VersionRef) {
  const version = await findVersion(db, tenantId, name, ref, "skill");
  if (!version) return null;
  const row = await versionRow(db, tenantId, name, { version: version.version });
  return { ...version, files: row ? await filesOf(db, tenantId, row.id) : [] };
}

/** What the model is told up front: each live skill's name and description (production, else latest). */
export async function liveSkills(
  db: Database,
  tenantId: string,
): Promise<{ name: string; description: string; version: number }[]> {
  const skills = await db
    .select({ id: prompt.id, name: prompt.name })
    .from(prompt)
    .where(and(eq(prompt.tenantId, tenantId), eq(prompt.kind, "skill"), isNull(prompt.archivedAt)))
    .orderBy(asc(prompt.name))
    .limit(SKILL_LIMITS.maxLiveSkills);
  if (!skills.length) return [];
  const ids = skills.map((s) => s.id);
  const labels = await db
    .select({ promptId: promptLabel.promptId, label: promptLabel.label, version: promptLabel.version })
    .from(promptLabel)
    .where(and(inArray(promptLabel.promptId, ids), inArray(promptLabel.label, [PROTECTED_LABEL, LATEST])));
  // Each skill's loaded version only (production, else latest), not every version it has.
  const chosen = skills.flatMap((s) => {
    const own = labels.filter((l) => l.promptId === s.id);
    const number =
      own.find((l) => l.label === PROTECTED_LABEL)?.version ?? own.find((l) => l.label === LATEST)?.version;
    return number === undefined ? [] : [{ ...s, number }];
  });
  if (!chosen.length) return [];
  const versions = await db
    .select({
      promptId: promptVersion.promptId,
      version: promptVersion.version,
      config: promptVersion.config,
    })
    .from(promptVersion)
    .where(
      and(
        eq(promptVersion.tenantId, tenantId),
        or(...chosen.map((c) => and(eq(promptVersion.promptId, c.id), eq(promptVersion.version, c.number)))),
      ),
    );
  return chosen.flatMap((c) => {
    const v = versions.find((x) => x.promptId === c.id && x.version === c.number);
    return v ? [{ name: c.name, description: v.config.description ?? "", version: v.version }] : [];
  });
}

/** Says which skill was not found, for errors. */
export const missingSkill = (name: string, ref: VersionRef = {}) =>
  notFound(
    ref.version !== undefined
      ? `skill "${name}" version ${ref.version}`
      : ref.label
        ? `skill "${name}" with label "${ref.label}"`
        : `skill "${name}"`,
  );

/** Archives a skill: no longer listed nor offered to the model; its versions and files stay. */
export async function archiveSkill(
  db: Database,
  tenantId: string,
  name: string,
  actor: Actor,
  rights: PromptRights,
): Promise<void> {
  if (!rights.edit) throw forbidden("only tenant admins and prompt editors change skills");
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(prompt)
      .set({ archivedAt: new Date() })
      .where(
        and(
          eq(prompt.tenantId, tenantId),
          eq(prompt.name, name),
          eq(prompt.kind, "skill"),
          isNull(prompt.archivedAt),
        ),
      )
      .returning({ id: prompt.id });
    if (!row) throw notFound(`skill "${name}"`);
    await recordChange(tx, actor, {
      tenantId,
      action: "prompt.archived",
      objectType: "prompt",
      objectId: name,
      before: { kind: "skill", archived: false },
      after: { kind: "skill", archived: true },
    });
  });
}

/** The agent's view of the store: what the skills tool set reads (production, else latest). */
export function skillLibrary(database: () => Promise<Database>): SkillLibrary {
  return {
    live: async (tenantId) => liveSkills(await database(), tenantId),
    // An archived skill is not the model's to load, even by a name it remembers.
    load: async (tenantId, name) => loadSkill(await database(), tenantId, name, {}, true),
    file: async (tenantId, name, path) => skillFile(await database(), tenantId, name, path, {}, true),
  };
}

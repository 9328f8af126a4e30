import { z } from "zod";
import type { TenantToolSource } from "../registry";
import { defineTool, StaticToolSet, type ToolSet } from "../tool";

/** A live skill as the model is told of it before loading it. */
export type SkillListing = { name: string; description: string; version: number };

/** Where the tenant's skills are read (features/prompts: skills are prompts of kind "skill"). */
export interface SkillLibrary {
  /** The tenant's live skills: not archived, at `production` (else `latest`). */
  live(tenantId: string): Promise<SkillListing[]>;
  load(
    tenantId: string,
    name: string,
  ): Promise<{
    name: string;
    version: number;
    description: string;
    instructions: string;
    files: { path: string; bytes: number }[];
  } | null>;
  file(
    tenantId: string,
    name: string,
    path: string,
  ): Promise<{ name: string; version: number; path: string; content: string; bytes: number } | null>;
}

/** How much of one file skill_file hands the model. */
export const SKILL_FILE_MAX_CHARS = 50_000;

/** The line per skill in the system prompt; a description is the tenant's text, kept on one line. */
const listingLine = (s: SkillListing) => `- ${s.name}: ${s.description.replace(/\s+/g, " ").slice(0, 1024)}`;

/**
 * The skills tool set: the system prompt names each live skill with its description (the static part), and the
 * instructions enter the context only when the model calls skill_load, so unused skills cost a line each.
 */
export function skillsToolSet(library: SkillLibrary, live: SkillListing[]): ToolSet {
  const load = defineTool({
    name: "skill_load",
    description:
      "Load a skill's instructions (and the list of its files) by name, before doing a task its description matches. Follow the instructions it returns.",
    category: "skills",
    keywords: ["skill", "instructions", "how to"],
    parameters: z.object({
      name: z.string().min(1).max(64).describe("The skill's name, from the list of skills"),
    }),
    execute: async ({ name }, ctx) => {
      const skill = await library.load(ctx.tenantId, name);
      if (!skill)
        throw new Error(`no skill "${name}"; the skills are: ${live.map((s) => s.name).join(", ")}`);
      ctx.noteUse({ kind: "skill", name: skill.name, version: skill.version });
      // Name and version first: the audit keeps the start of a long result, and it says which version was used.
      return {
        skill: skill.name,
        version: skill.version,
        instructions: skill.instructions,
        files: skill.files,
      };
    },
  });
  const file = defineTool({
    name: "skill_file",
    description:
      "Read one file of a skill (a reference, a template, an example) by the path skill_load listed. Long files are cut.",
    category: "skills",
    keywords: ["skill file", "reference"],
    parameters: z.object({
      name: z.string().min(1).max(64).describe("The skill's name"),
      path: z.string().min(1).max(255).describe("The file's path, as skill_load listed it"),
    }),
    execute: async ({ name, path }, ctx) => {
      const found = await library.file(ctx.tenantId, name, path);
      if (!found) throw new Error(`skill "${name}" has no file "${path}"; skill_load lists its files`);
      const cut = found.content.length > SKILL_FILE_MAX_CHARS;
      return {
        skill: found.name,
        version: found.version,
        path: found.path,
        content: cut ? found.content.slice(0, SKILL_FILE_MAX_CHARS) : found.content,
        ...(cut ? { truncated: true, bytes: found.bytes } : {}),
      };
    },
  });
  const prompt = [
    "Skills are instructions for particular tasks, kept out of this prompt until needed. When a request matches a skill's description, call skill_load with its name first and follow the instructions it returns; skill_file reads one of its files. The skills:",
    ...live.map(listingLine),
  ].join("\n");
  return new StaticToolSet("skills", [load, file], prompt);
}

/** Each tenant's skills as a tool set of its turns (none when it has no live skill: no tools, no prompt). */
export function skillsToolSource(library: SkillLibrary): TenantToolSource {
  return {
    toolSets: async (tenantId) => {
      const live = await library.live(tenantId);
      return live.length ? [skillsToolSet(library, live)] : [];
    },
  };
}

/** Several sources of tenants' tool sets as one, in order (the registry takes one source). */
export function joinToolSources(...sources: TenantToolSource[]): TenantToolSource {
  return {
    toolSets: async (tenantId) => (await Promise.all(sources.map((s) => s.toolSets(tenantId)))).flat(),
  };
}

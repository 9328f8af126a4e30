// What the prompt routes take and answer, shared by the routes and the browser. Browser-safe: zod, the template
// rules, and types only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import type { PlaygroundRun } from "@/features/prompts/server/playground";
import { SKILL_LIMITS, skillNameProblem } from "@/features/prompts/server/skill-rules";
import type { SkillFileView } from "@/features/prompts/server/skills";
import type { VersionStats } from "@/features/prompts/server/stats";
import type { PromptSummary, PromptVersionView as StoredVersion } from "@/features/prompts/server/store";
import { LABEL_NAME, PROMPT_NAME, type TemplateMessage } from "@/features/prompts/server/template";
import type { Json } from "@/lib/client/api";
import { z } from "@/lib/core/schema/zod";

/** Path words the prompt routes use after a name, so no name segment may be one of them. */
export const RESERVED_SEGMENTS = ["labels", "versions", "run", "stats"];

export const promptName = z
  .string()
  .trim()
  .min(1, "enter a name")
  .max(200)
  .regex(PROMPT_NAME, 'letters, digits, ".", "_" and "-", with "/" between folders (e.g. support/triage)')
  .refine(
    (n) => !n.split("/").some((s) => RESERVED_SEGMENTS.includes(s)),
    `"${RESERVED_SEGMENTS.join('", "')}" cannot be a part of a name`,
  );

export const labelName = z
  .string()
  .regex(LABEL_NAME, "lower-case letters, digits, - and _ (e.g. production)");

const text = (max: number) => z.string().max(max).refine(hasNoNul, NO_NUL);
const message = z.object({ role: z.enum(["system", "user", "assistant"]), content: text(100_000) }).strict();

export const promptConfigInput = z
  .object({
    model: z.string().trim().min(1).max(200).refine(hasNoNul, NO_NUL).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().min(1).max(1_000_000).optional(),
    toolSets: z.array(z.string().max(100).refine(hasNoNul, NO_NUL)).max(50).optional(),
  })
  .strict();

const common = {
  name: promptName,
  config: promptConfigInput.optional(),
  labels: z.array(labelName).max(20).optional(),
  message: text(2_000).optional(),
};

/** A new prompt, or the next version of one: a chat prompt's messages or a text prompt's text. */
export const newPromptInput = z.discriminatedUnion("type", [
  z
    .object({
      ...common,
      type: z.literal("chat"),
      messages: z.array(message).min(1, "add a message").max(100),
    })
    .strict(),
  z
    .object({
      ...common,
      type: z.literal("text"),
      text: text(100_000).pipe(z.string().min(1, "enter the text")),
    })
    .strict(),
]);

export const moveLabelInput = z.object({ version: z.number().int().min(1) }).strict();

/** A playground run: which version (number or label, else production), its variables, and the alias to ask. */
export const playgroundInput = z
  .object({
    version: z.number().int().min(1).optional(),
    label: labelName.optional(),
    variables: z.record(z.string().max(200), text(100_000)).default({}),
    model: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export type PromptMessageView = TemplateMessage;
export type PromptConfigView = z.output<typeof promptConfigInput>;

// What the routes answer: the store's own types as JSON (dates as ISO strings), so each exists once.
export type PromptVersionView = Json<StoredVersion>;
export type PromptSummaryView = Json<PromptSummary>;
export type PlaygroundResult = Json<PlaygroundRun>;
export type VersionStatsView = VersionStats;

// Skills: text prompts of kind "skill" (server/skills.ts), with their own routes under /api/skills.

export { SKILL_LIMITS, skillNameProblem };

export const skillName = z.string().superRefine((n, ctx) => {
  const problem = skillNameProblem(n);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const skillFile = z
  .object({ path: z.string().min(1).max(SKILL_LIMITS.maxPathLength), content: z.string() })
  .strict();

/** A new skill, or its next version, written in the page's editor (or by an API client). */
export const newSkillInput = z
  .object({
    name: skillName,
    description: text(SKILL_LIMITS.maxDescription).pipe(z.string().trim().min(1, "enter a description")),
    instructions: text(100_000).pipe(z.string().min(1, "enter the instructions")),
    files: z.array(skillFile).max(SKILL_LIMITS.maxFiles).optional(),
    labels: z.array(labelName).max(20).optional(),
    message: text(2_000).optional(),
  })
  .strict();

/** An Agent-Skills folder as JSON: SKILL.md and its files by path. */
export const importSkillInput = z
  .object({
    files: z
      .array(skillFile)
      .min(1, "give SKILL.md")
      .max(SKILL_LIMITS.maxFiles + 1),
    labels: z.array(labelName).max(20).optional(),
  })
  .strict();

export type SkillSummaryView = Json<PromptSummary>;
export type SkillVersionView = Json<StoredVersion> & { files: SkillFileView[] };

import "server-only";
import { z } from "zod";
import {
  importSkillInput,
  labelName,
  moveLabelInput,
  newSkillInput,
  skillName,
} from "@/features/prompts/contracts";
import { AT } from "../examples";
import { answer, json, type Operation } from "../registry";
import { promptRights, promptSummary, promptVersion } from "../shapes";

const TAG = "Skills";
const ONE = "app/api/skills/[name]/route.ts";
const SKILL_NOTE =
  "A skill is a text prompt of kind skill in the prompt store: its text is the instructions, `config.description` the line the model is told, and each version has its files.";

const versionNumber = z
  .string()
  .regex(/^\d{1,9}$/)
  .describe("a version number, such as 3");
const named = z.object({ name: skillName });
const saved = z.object({ name: z.string(), version: z.number().int(), labels: z.array(z.string()) });
const fileView = z.object({ path: z.string(), bytes: z.number().int() });

export const skillOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/skills",
    route: "app/api/skills/route.ts",
    operationId: "listSkills",
    tag: TAG,
    summary: "The tenant's skills",
    description: `With their labels, newest version and description; every member may read them. ${SKILL_NOTE}`,
    guard: "user",
    tenant: true,
    answers: {
      200: answer(
        "The skills.",
        z.object({
          skills: z.array(promptSummary.extend({ description: z.string() })),
          rights: promptRights,
        }),
        {
          skills: [
            {
              name: "refund-policy",
              type: "text",
              latestVersion: 2,
              labels: { latest: 2, production: 2 },
              updatedAt: AT,
              description: "How to answer refund questions",
            },
          ],
          rights: { edit: true, admin: true },
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/skills",
    route: "app/api/skills/route.ts",
    operationId: "createSkillVersion",
    tag: TAG,
    summary: "Create a skill, or its next version",
    description:
      "Names: lowercase letters, digits and `-`, at most 64 characters; a name a prompt has is a 409. Files: text, relative paths, at most 100 files, 256 KiB each and 1 MiB in all.",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise); `production` for tenant admins only",
    body: json(
      newSkillInput,
      {
        name: "refund-policy",
        description: "How to answer refund questions",
        instructions: "# Refunds\n\nCheck the order's date first…",
        files: [{ path: "reference/policy.md", content: "Refunds within 30 days…" }],
        labels: ["production"],
      },
      "NewSkillInput",
    ),
    answers: {
      201: answer("The version made.", saved, {
        name: "refund-policy",
        version: 1,
        labels: ["latest", "production"],
      }),
    },
    errorDialect: "app",
    errors: { 409: "the name is a prompt's" },
  },
  {
    method: "POST",
    path: "/api/skills/import",
    route: "app/api/skills/import/route.ts",
    operationId: "importSkill",
    tag: TAG,
    summary: "Import an Agent-Skills folder",
    description:
      "JSON `{files: [{path, content}]}`, or a zip as multipart/form-data in the field `file` (at most 2 MiB, 1 MiB decompressed). SKILL.md (at the root or in one top folder) starts with front matter `name:` and `description:`; its body is the instructions. A skill of that name gets a new version.",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise)",
    body: json(
      importSkillInput,
      {
        files: [
          {
            path: "SKILL.md",
            content:
              "---\nname: refund-policy\ndescription: How to answer refund questions\n---\n# Refunds\n…",
          },
          { path: "reference/policy.md", content: "Refunds within 30 days…" },
        ],
      },
      "ImportSkillInput",
    ),
    answers: {
      201: answer("The version made.", saved.extend({ description: z.string(), files: z.number().int() }), {
        name: "refund-policy",
        version: 2,
        labels: ["latest"],
        description: "How to answer refund questions",
        files: 1,
      }),
    },
    errorDialect: "app",
    errors: {
      409: "the name is a prompt's",
      413: "the zip is over 2 MiB",
      415: "neither JSON nor multipart",
    },
  },
  {
    method: "GET",
    path: "/api/skills/{name}",
    route: ONE,
    operationId: "getSkill",
    tag: TAG,
    summary: "A skill's versions, one version, or one file",
    description:
      "Without a query: every version and label. With `?label=` or `?version=`: that version and its files as `{version}`. With `?file=path` (and optionally a version or label; else production, then latest): that file as `{file}`.",
    guard: "user",
    tenant: true,
    params: {
      path: named,
      query: z.object({
        label: labelName.optional(),
        version: versionNumber.optional(),
        file: z.string().optional().describe("a file's path in the skill"),
      }),
    },
    answers: {
      200: answer(
        "The versions and labels (or `{version}`, or `{file}`).",
        z.union([
          z.looseObject({
            name: z.string(),
            labels: z.record(z.string(), z.number().int()),
            versions: z.array(promptVersion),
            rights: promptRights,
          }),
          z.object({ version: promptVersion.extend({ files: z.array(fileView) }) }),
          z.object({
            file: z.object({
              name: z.string(),
              version: z.number().int(),
              path: z.string(),
              content: z.string(),
              bytes: z.number().int(),
            }),
          }),
        ]),
        {
          file: {
            name: "refund-policy",
            version: 2,
            path: "reference/policy.md",
            content: "Refunds within 30 days…",
            bytes: 23,
          },
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such skill, version, label or file" },
  },
  {
    method: "DELETE",
    path: "/api/skills/{name}",
    route: ONE,
    operationId: "archiveSkill",
    tag: TAG,
    summary: "Archive a skill",
    description:
      "Hidden from the list and from the model; its versions stay, and a new version brings it back.",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise)",
    params: { path: named },
    answers: {
      200: answer("Archived.", z.object({ archived: z.object({ name: z.string() }) }), {
        archived: { name: "refund-policy" },
      }),
    },
    errorDialect: "app",
    errors: { 404: "no such skill" },
  },
  {
    method: "PUT",
    path: "/api/skills/{name}/labels/{label}",
    route: "app/api/skills/[name]/labels/[label]/route.ts",
    operationId: "moveSkillLabel",
    tag: TAG,
    summary: "Point a skill's label at a version",
    description: "The model loads `production`, else `latest`. `production` is for tenant admins.",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors; `production` for tenant admins only (403)",
    params: { path: z.object({ name: skillName, label: labelName }) },
    body: json(moveLabelInput, { version: 2 }, "MoveLabelInput"),
    answers: {
      200: answer(
        "Where the label points now, and where it pointed.",
        z.object({
          name: z.string(),
          label: z.string(),
          version: z.number().int(),
          previous: z.number().int().nullable(),
        }),
        { name: "refund-policy", label: "production", version: 2, previous: 1 },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such skill or version", 409: "the version is archived" },
  },
  {
    method: "DELETE",
    path: "/api/skills/{name}/versions/{version}",
    route: "app/api/skills/[name]/versions/[version]/route.ts",
    operationId: "archiveSkillVersion",
    tag: TAG,
    summary: "Archive a skill version",
    description: "Only a version no label points at; nothing is deleted.",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise)",
    params: { path: z.object({ name: skillName, version: versionNumber }) },
    answers: {
      200: answer(
        "Archived.",
        z.object({ archived: z.object({ name: z.string(), version: z.number().int() }) }),
        { archived: { name: "refund-policy", version: 1 } },
      ),
    },
    errorDialect: "app",
    errors: { 409: "a label points at it" },
  },
];

import "server-only";
import { z } from "zod";
import {
  labelName,
  moveLabelInput,
  newPromptInput,
  playgroundInput,
  promptName,
} from "@/features/prompts/contracts";
import { AT, ID } from "../examples";
import { answer, json, type Operation } from "../registry";
import { promptRights, promptSummary, promptVersion, usd } from "../shapes";

const TAG = "Prompts";
const ROUTE = "app/api/prompts/[...path]/route.ts";
const NAME_NOTE =
  "A prompt's name may hold `/` (folders): send it as path segments, e.g. /api/prompts/support/triage.";

const versionNumber = z
  .string()
  .regex(/^\d{1,9}$/)
  .describe("a version number, such as 3");
// The route checks each with promptName.safeParse: the very object, so no `.describe()` (which makes a copy).
const named = z.object({ name: promptName });

const version = {
  name: "support/triage",
  version: 3,
  type: "chat" as const,
  messages: [{ role: "system", content: "You triage {{product}} tickets." }],
  text: null,
  config: { model: "fast", temperature: 0.2 },
  variables: ["product"],
  message: "shorter system prompt",
  createdBy: "ada@example.com",
  createdAt: AT,
  archived: false,
  labels: ["production", "latest"],
};

export const promptOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/prompts",
    route: "app/api/prompts/route.ts",
    operationId: "listPrompts",
    tag: TAG,
    summary: "The tenant's prompts",
    description:
      "With their labels and newest version; every member may read them. `rights` says what you may change.",
    guard: "user",
    tenant: true,
    answers: {
      200: answer("The prompts.", z.object({ prompts: z.array(promptSummary), rights: promptRights }), {
        prompts: [
          {
            name: "support/triage",
            type: "chat",
            latestVersion: 3,
            labels: { production: 3, latest: 3 },
            updatedAt: AT,
          },
        ],
        rights: { edit: true, admin: false },
      }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/prompts",
    route: "app/api/prompts/route.ts",
    operationId: "createPromptVersion",
    tag: TAG,
    summary: "Create a prompt, or its next version",
    description:
      "Versions are immutable; labels are pointers (`production` is for tenant admins, `latest` moves by itself).",
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise); `production` for tenant admins only",
    body: json(
      newPromptInput,
      {
        name: "support/triage",
        type: "chat",
        messages: [{ role: "system", content: "You triage {{product}} tickets." }],
        config: { model: "fast", temperature: 0.2 },
        labels: ["staging"],
        message: "shorter system prompt",
      },
      "NewPromptInput",
    ),
    answers: {
      201: answer(
        "The version made.",
        z.object({ name: z.string(), version: z.number().int(), labels: z.array(z.string()) }),
        { name: "support/triage", version: 4, labels: ["staging", "latest"] },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/prompts/{name}",
    route: ROUTE,
    operationId: "getPrompt",
    tag: TAG,
    summary: "A prompt's versions, or one version",
    description: `Without a query: every version and label. With \`?label=\` or \`?version=\` (not both): that version as \`{version}\`. ${NAME_NOTE}`,
    guard: "user",
    tenant: true,
    params: {
      path: named,
      query: z.object({ label: labelName.optional(), version: versionNumber.optional() }),
    },
    answers: {
      200: answer(
        "The versions and labels (or `{version}` when one was asked for).",
        z.union([
          z.looseObject({
            name: z.string(),
            type: z.enum(["chat", "text"]),
            labels: z.record(z.string(), z.number().int()),
            versions: z.array(promptVersion),
            rights: promptRights,
          }),
          z.object({ version: promptVersion }),
        ]),
        {
          name: "support/triage",
          type: "chat",
          labels: { production: 3 },
          versions: [version],
          rights: { edit: true, admin: false },
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such prompt, version or label" },
  },
  {
    method: "GET",
    path: "/api/prompts/{name}/stats",
    route: ROUTE,
    operationId: "getPromptStats",
    tag: TAG,
    summary: "Compare a prompt's versions",
    description: `Each version's calls, failure rate, cost, cost per call and p50/p95 latency from the ledger. ${NAME_NOTE}`,
    guard: "user",
    tenant: true,
    params: {
      path: named,
      query: z.object({
        days: z
          .string()
          .regex(/^\d{1,2}$/)
          .optional()
          .describe("1 to 90, 7 by default"),
      }),
    },
    answers: {
      200: answer(
        "The versions' figures.",
        z.object({
          name: z.string(),
          days: z.number().int(),
          versions: z.array(
            z.looseObject({
              version: z.number().int(),
              calls: z.number().int(),
              failures: z.number().int(),
              failureRate: z.number(),
              cost: usd,
              costPerCall: usd.nullable(),
              p50LatencyMs: z.number().nullable(),
              p95LatencyMs: z.number().nullable(),
              scores: z
                .array(z.object({ name: z.string(), mean: z.number(), count: z.number().int() }))
                .describe(
                  "each score's mean over the version's calls (thumbs: the share of thumbs up), most given first",
                ),
            }),
          ),
        }),
        {
          name: "support/triage",
          days: 7,
          versions: [
            {
              version: 3,
              calls: 120,
              failures: 1,
              failureRate: 0.0083,
              cost: "0.84",
              costPerCall: "0.007",
              p50LatencyMs: 900,
              p95LatencyMs: 2100,
              scores: [
                { name: "thumbs", mean: 0.8, count: 10 },
                { name: "helpfulness", mean: 0.72, count: 4 },
              ],
            },
          ],
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/prompts/{name}/labels/{label}",
    route: ROUTE,
    operationId: "moveLabel",
    tag: TAG,
    summary: "Point a label at a version",
    description: `\`production\` is for tenant admins; \`latest\` is kept by the store. ${NAME_NOTE}`,
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors; `production` for tenant admins only (403)",
    params: { path: z.object({ name: promptName, label: labelName }) },
    body: json(moveLabelInput, { version: 3 }, "MoveLabelInput"),
    answers: {
      200: answer(
        "Where the label points now, and where it pointed.",
        z.object({
          name: z.string(),
          label: z.string(),
          version: z.number().int(),
          previous: z.number().int().nullable(),
        }),
        { name: "support/triage", label: "production", version: 3, previous: 2 },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such prompt or version", 409: "the version is archived" },
  },
  {
    method: "POST",
    path: "/api/prompts/{name}/run",
    route: ROUTE,
    operationId: "runPlayground",
    tag: TAG,
    summary: "Run a version in the playground",
    description: `A metered call (source playground) with sample variables against an alias. ${NAME_NOTE}`,
    guard: "user",
    tenant: true,
    params: { path: named },
    body: json(
      playgroundInput,
      { label: "staging", variables: { product: "Tollgate" }, model: "fast" },
      "PlaygroundInput",
    ),
    answers: {
      200: answer(
        "The answer, its usage and cost.",
        z.object({
          run: z.looseObject({
            turnId: z.uuid(),
            status: z.enum(["success", "failed", "stopped"]),
            answer: z.string(),
            servedModel: z.string().nullable(),
            cost: usd.nullable(),
            latencyMs: z.number(),
          }),
          version: z.object({ name: z.string(), version: z.number().int() }),
        }),
        {
          run: {
            turnId: ID.turn,
            status: "success",
            answer: "Billing.",
            servedModel: "gpt-4.1-mini",
            cost: "0.0004",
            latencyMs: 700,
          },
          version: { name: "support/triage", version: 4 },
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such prompt, version or label" },
  },
  {
    method: "DELETE",
    path: "/api/prompts/{name}/versions/{version}",
    route: ROUTE,
    operationId: "archivePromptVersion",
    tag: TAG,
    summary: "Archive a version",
    description: `Only a version no label points at; nothing is deleted. ${NAME_NOTE}`,
    guard: "user",
    tenant: true,
    access: "tenant admins and prompt editors (403 otherwise)",
    params: { path: z.object({ name: promptName, version: versionNumber }) },
    answers: {
      200: answer(
        "Archived.",
        z.object({ archived: z.object({ name: z.string(), version: z.number().int() }) }),
        { archived: { name: "support/triage", version: 2 } },
      ),
    },
    errorDialect: "app",
    errors: { 409: "a label points at it" },
  },
];

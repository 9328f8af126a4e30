import "server-only";
import { z } from "zod";
import {
  qualityQuery,
  SCORE_SOURCES,
  SCORE_TYPES,
  scoreConfigInput,
  scoreConfigPatch,
  scoreInput,
  scoresQuery,
} from "@/features/scores/contracts";
import { AT, ID } from "../examples";
import { answer, json, type Operation } from "../registry";

const TAG = "Scores";
const SCORE = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a31";

const scoreView = z.object({
  id: z.uuid(),
  turnId: z.uuid().nullable().describe("the ledger row scored, or null for a score on a run"),
  runId: z.string().nullable(),
  name: z.string(),
  type: z.enum(SCORE_TYPES),
  value: z
    .union([z.number(), z.boolean(), z.string()])
    .nullable()
    .describe("numeric: the number; boolean: true / false; categorical: the category"),
  comment: z.string().nullable(),
  source: z.enum(SCORE_SOURCES),
  userId: z.uuid().nullable().describe("the person who sent it (a session)"),
  apiKeyId: z.uuid().nullable().describe("the key that sent it (POST /v1/scores)"),
  evalRunId: z.uuid().nullable().describe("the evaluation run that wrote it"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const scoreExample = {
  id: SCORE,
  turnId: ID.turn,
  runId: "checkout-42",
  name: "thumbs",
  type: "boolean" as const,
  value: false,
  comment: "It quoted last year's prices.",
  source: "human" as const,
  userId: ID.user,
  apiKeyId: null,
  evalRunId: null,
  createdAt: AT,
  updatedAt: AT,
};
const scoreAnswer = z.object({ score: scoreView });
const bodyExample = {
  turnId: ID.turn,
  name: "thumbs",
  value: false,
  comment: "It quoted last year's prices.",
};
const VALIDATION =
  "the value is not the type of the tenant's score config of that name, or outside its range or categories; or a " +
  "field is invalid (the fields name it)";

const CONFIG = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a32";
const configView = z.object({
  id: z.uuid(),
  name: z.string(),
  type: z.enum(SCORE_TYPES),
  min: z.number().nullable(),
  max: z.number().nullable(),
  categories: z.array(z.string()),
  description: z.string().nullable(),
  archivedAt: z.string().nullable().describe("when it stopped validating new scores, or null while live"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const configExample = {
  id: CONFIG,
  name: "helpfulness",
  type: "numeric" as const,
  min: 0,
  max: 1,
  categories: [],
  description: "How much the answer helped, 0 to 1.",
  archivedAt: null,
  createdAt: AT,
  updatedAt: AT,
};
const configAnswer = z.object({ config: configView });
const configPath = z.object({ id: z.uuid().describe("the config's id") });
const CONFIGS = "app/api/score-configs/route.ts";
const CONFIG_ROUTE = "app/api/score-configs/[id]/route.ts";

const configOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/score-configs",
    route: CONFIGS,
    operationId: "listScoreConfigs",
    tag: TAG,
    summary: "Score configs",
    description:
      "The active tenant's score configs, live first, by name (archived ones too, with `archivedAt`).",
    guard: "tenant-admin",
    tenant: true,
    answers: {
      200: answer("The configs.", z.object({ configs: z.array(configView) }), { configs: [configExample] }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/score-configs",
    route: CONFIGS,
    operationId: "createScoreConfig",
    tag: TAG,
    summary: "Create a score config",
    description:
      "A name and a type: `numeric` (with an optional `min` / `max`), `boolean`, or `categorical` (with its " +
      "`categories`). From then on every score of that name must fit it. Logged in the admin changes.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      scoreConfigInput,
      {
        name: "helpfulness",
        type: "numeric",
        min: 0,
        max: 1,
        description: "How much the answer helped, 0 to 1.",
      },
      "ScoreConfigInput",
    ),
    answers: { 201: answer("The config.", configAnswer, { config: configExample }) },
    errorDialect: "app",
    errors: {
      409: "the tenant has a config of that name (archived ones included)",
      422: "a field is invalid",
    },
  },
  {
    method: "PATCH",
    path: "/api/score-configs/{id}",
    route: CONFIG_ROUTE,
    operationId: "updateScoreConfig",
    tag: TAG,
    summary: "Change a score config",
    description:
      "Its description, range or categories; its name and type stay. Scores already given keep their values. Logged.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: configPath },
    body: json(scoreConfigPatch, { max: 5 }, "ScoreConfigPatch"),
    answers: { 200: answer("The config.", configAnswer, { config: { ...configExample, max: 5 } }) },
    errorDialect: "app",
    errors: {
      404: "no such config in the active tenant",
      422: "the changed config is invalid (the fields name it)",
    },
  },
  {
    method: "POST",
    path: "/api/score-configs/{id}/archive",
    route: "app/api/score-configs/[id]/archive/route.ts",
    operationId: "archiveScoreConfig",
    tag: TAG,
    summary: "Archive a score config",
    description: "It validates no new score from then on; its scores stay. Logged.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: configPath },
    answers: {
      200: answer("The config.", configAnswer, { config: { ...configExample, archivedAt: AT } }),
    },
    errorDialect: "app",
    errors: { 404: "no such config in the active tenant" },
  },
];

export const scoreOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/scores",
    route: "app/api/scores/route.ts",
    operationId: "listScores",
    tag: TAG,
    summary: "Scores of a turn or a run",
    description: `The active tenant's scores of one ledger row (\`turnId\`) or one run (\`runId\`, its turns' scores included), oldest first, at most 500.`,
    guard: "user",
    tenant: true,
    access: "members: their own turns (and runs with one of them) only; tenant admins: any of the tenant's",
    params: { query: scoresQuery },
    answers: {
      200: answer("The scores.", z.object({ scores: z.array(scoreView) }), { scores: [scoreExample] }),
    },
    errorDialect: "app",
    errors: {
      404: "no such turn or run in the active tenant (another tenant's included; for a member, another person's)",
    },
  },
  {
    method: "POST",
    path: "/api/scores",
    route: "app/api/scores/route.ts",
    operationId: "putScore",
    tag: TAG,
    summary: "Score a turn or a run",
    description:
      "A number, true / false or a category, with a comment. Source `human` by default: a person's score of one " +
      "name on one turn is theirs to change (sending it again answers 200 with the changed row). Tenant admins may " +
      "send `api` or `eval` scores too; members `human` only (403), on their own turns (and runs with one of " +
      "them) only: another person's turn answers 404 to a member.",
    guard: "user",
    tenant: true,
    access:
      "members: source human, on their own turns only; tenant admins: any source, any turn of the tenant",
    body: json(scoreInput, bodyExample, "ScoreInput"),
    answers: {
      201: answer("The new score.", scoreAnswer, { score: scoreExample }, "ScoreAnswer"),
      200: answer("The person's score, changed.", scoreAnswer, { score: scoreExample }),
    },
    errorDialect: "app",
    errors: {
      404: "no such turn or run in the active tenant",
      409: "the turn (or run) holds 1,000 scores, the most one may (a person's own vote still changes)",
      422: VALIDATION,
    },
  },
  {
    method: "POST",
    path: "/v1/scores",
    route: "app/v1/[...path]/route.ts",
    handledIn: "features/v1/server/scores.ts",
    operationId: "v1PutScore",
    tag: TAG,
    summary: "Score a turn or a run (API key)",
    description:
      "As POST /api/scores, for applications and evaluators: source `api` by default, or `eval`; `human` is refused " +
      "(a key has no person). Each call is a score of its own, carrying the key. Errors in OpenAI's shape, `param` " +
      "naming the field.",
    guard: "api-key",
    body: json(scoreInput, { ...bodyExample, name: "helpfulness", value: 0.4, comment: undefined }),
    answers: {
      201: answer("The score.", scoreAnswer, {
        score: {
          ...scoreExample,
          name: "helpfulness",
          type: "numeric",
          value: 0.4,
          comment: null,
          source: "api",
          userId: null,
          apiKeyId: ID.key,
        },
      }),
    },
    errorDialect: "openai",
    errors: {
      404: "no such turn or run in the key's tenant",
      409: "the turn (or run) holds 1,000 scores, the most one may",
      422: VALIDATION,
    },
  },
  ...configOperations,
  {
    method: "GET",
    path: "/api/scores/quality",
    route: "app/api/scores/quality/route.ts",
    operationId: "modelQuality",
    tag: TAG,
    summary: "Quality and cost by model",
    description:
      "The active tenant's served models over the last `days` days (the 20 most called): finished calls, cost, cost " +
      "per priced call, and each score's mean over their calls (thumbs: the share of thumbs up), most given first.",
    guard: "tenant-admin",
    tenant: true,
    params: { query: qualityQuery },
    answers: {
      200: answer(
        "The models, the most called first.",
        z.object({
          days: z.number().int(),
          models: z.array(
            z.object({
              model: z.string(),
              calls: z.number().int(),
              cost: z.string(),
              costPerCall: z.string().nullable(),
              scores: z.array(z.object({ name: z.string(), mean: z.number(), count: z.number().int() })),
            }),
          ),
        }),
        {
          days: 7,
          models: [
            {
              model: "gpt-4o-mini",
              calls: 240,
              cost: "1.2",
              costPerCall: "0.005",
              scores: [
                { name: "thumbs", mean: 0.85, count: 20 },
                { name: "helpfulness", mean: 0.7, count: 12 },
              ],
            },
          ],
        },
      ),
    },
    errorDialect: "app",
  },
];

import "server-only";
import { z } from "zod";
import { AT } from "../examples";
import { type Answer, answer, type Content, json, type Operation } from "../registry";

// The OpenAI- and Anthropic-compatible API (features/v1/server). Its bodies are the providers' own wire formats, passed
// through unchanged to a serving candidate of the same format (or translated by a documented table); Tollgate
// checks only what it needs before anything is sent (features/v1/server/handler.ts `problemOf`), so these schemas name
// those fields and let every other field through.

const TAG = "Model API (/v1)";
const ROUTE = "app/v1/[...path]/route.ts";

const promptRef = z
  .object({
    id: z.string().describe("the stored prompt's name"),
    version: z.string().optional().describe('a version number, such as "3"'),
    label: z.string().optional().describe("a label; `production` when neither is given"),
    variables: z.record(z.string(), z.string()).optional(),
  })
  .describe(
    "OpenAI's reusable-prompt object, answered from the tenant's prompt store (chat completions and responses)",
  );

const message = z.looseObject({ role: z.string(), content: z.unknown().optional() });
const chatBody = z.looseObject({
  model: z
    .string()
    .describe(
      "one of the gateway's aliases (GET /v1/models); filled from the prompt's config when it has one",
    ),
  messages: z.array(message).min(1),
  stream: z.boolean().optional(),
  prompt: promptRef.optional(),
});
const responsesBody = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.unknown())]).optional(),
  stream: z.boolean().optional(),
  prompt: promptRef.optional(),
});
const embeddingsBody = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string()), z.array(z.number()), z.array(z.array(z.number()))]),
});
const moderationsBody = z.looseObject({
  model: z
    .string()
    .describe("one of the gateway's aliases (Tollgate needs one; OpenAI's default does not apply)"),
  input: z.union([z.string(), z.array(z.string()), z.array(z.looseObject({ type: z.string() }))]),
});
const imageBody = z.looseObject({
  model: z.string(),
  prompt: z.string(),
  n: z.number().int().min(1).max(10).optional(),
  size: z.string().optional(),
  quality: z.string().optional(),
});
const imagesAnswer = z.looseObject({ created: z.number().int(), data: z.array(z.looseObject({})) });
const speechBody = z.looseObject({
  model: z.string(),
  input: z.string(),
  voice: z.string(),
  response_format: z.string().optional(),
});
const anthropicBody = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int(),
  messages: z.array(message).min(1),
  system: z.unknown().optional(),
  stream: z.boolean().optional(),
});

const callHeaders = z.object({
  "x-tollgate-end-user": z
    .string()
    .optional()
    .describe("who in the calling app asked, for spend attribution"),
  "x-tollgate-tags": z.string().optional().describe("comma-separated tags for the ledger row"),
  "x-tollgate-run-id": z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      "the run the call belongs to (1 to 128 printable ASCII characters; else 400); OpenAI formats may send metadata.run_id instead",
    ),
  "cache-control": z.string().optional().describe("`no-cache` or `no-store` skips the response cache"),
});
const anthropicHeaders = callHeaders.extend({
  "anthropic-version": z.string().optional().describe("passed upstream"),
  "anthropic-beta": z.string().optional().describe("passed upstream"),
});

const CALL_HEADERS = {
  "x-tollgate-provider": "the provider that answered",
  "x-tollgate-model": "the upstream model that answered",
  "x-tollgate-fallback-index": "which candidate of the alias's chain answered (0: the first)",
  "x-tollgate-cache": "`hit` when answered from the response cache",
  "x-tollgate-warning": "a guardrail's or a soft budget's warning",
  "x-tollgate-dropped-params":
    "parameters the serving candidate cannot carry, dropped because the alias allows it",
  "x-ratelimit-remaining-requests": "OpenAI's rate-limit headers, for the limits that applied",
};
const CALL_ERRORS = {
  400: "a required field is missing or cannot be carried to the serving candidate (`param` names it); JSON too deep",
  404: "`model` is not an alias (model_not_found), or the prompt was not found",
  413: "the body is over MAX_BODY_BYTES (10 MB)",
  429: "a rate limit (rate_limit_exceeded) or a hard budget (budget_exceeded, budget_unpriced_model: insufficient_quota, x-should-retry: false)",
  499: "the caller went away",
  502: "every candidate failed (the last one's error class)",
  503: "no candidate can serve (all cooling down)",
  504: "the upstream timed out",
};

const modelCall = (
  path: string,
  operationId: string,
  summary: string,
  body: ReturnType<typeof json>,
  answerSchema: z.ZodType,
  example: unknown,
  anthropic = false,
): Operation => ({
  method: "POST",
  path,
  route: ROUTE,
  operationId,
  tag: TAG,
  summary,
  description:
    "A governed model call: the pipeline (cache → guardrails → rate limits → budgets), the gateway's candidate chain, one ledger row (source api) and its audit. " +
    "The same wire format as the serving candidate goes upstream unchanged but for `model`; tools are passed through, not run. `stream: true` answers server-sent events in the provider's framing.",
  guard: "api-key",
  params: { headers: anthropic ? anthropicHeaders : callHeaders },
  body,
  answers: {
    200: {
      description: "The provider's answer, unchanged (JSON, or its event stream with `stream: true`).",
      content: { contentType: "application/json", schema: answerSchema, example },
      headers: CALL_HEADERS,
    },
  },
  errorDialect: anthropic ? "anthropic" : "openai",
  errors: CALL_ERRORS,
});

/** An images or audio call: governed as every model call, with its own body and answer (not always JSON). */
const mediaCall = (
  path: string,
  operationId: string,
  summary: string,
  description: string,
  body: Content,
  ok: Answer,
): Operation => ({
  ...modelCall(path, operationId, summary, body, z.unknown(), undefined),
  description: `A governed model call, on OpenAI-type candidates only (an Anthropic alias is a 400). ${description}`,
  answers: { 200: { ...ok, headers: CALL_HEADERS } },
});

const chatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), message, finish_reason: z.string().nullable() })),
  usage: z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).optional(),
});

export const v1Operations: Operation[] = [
  modelCall(
    "/v1/chat/completions",
    "createChatCompletion",
    "Chat completions (OpenAI)",
    json(chatBody, { model: "smart", messages: [{ role: "user", content: "How long do refunds take?" }] }),
    chatCompletion,
    {
      id: "chatcmpl-9",
      object: "chat.completion",
      model: "smart",
      choices: [
        { index: 0, message: { role: "assistant", content: "5 working days." }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 14, completion_tokens: 5 },
    },
  ),
  modelCall(
    "/v1/responses",
    "createResponse",
    "Responses (OpenAI)",
    json(responsesBody, { model: "smart", input: "How long do refunds take?" }),
    z.looseObject({ id: z.string(), object: z.literal("response"), output: z.array(z.unknown()) }),
    { id: "resp_9", object: "response", output: [] },
  ),
  modelCall(
    "/v1/embeddings",
    "createEmbeddings",
    "Embeddings (OpenAI)",
    json(embeddingsBody, { model: "embed", input: "refund policy" }),
    z.looseObject({ object: z.literal("list"), data: z.array(z.looseObject({ embedding: z.unknown() })) }),
    { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.012, -0.03] }] },
  ),
  modelCall(
    "/v1/moderations",
    "createModeration",
    "Moderations (OpenAI)",
    json(moderationsBody, { model: "moderation", input: "I will hurt you" }),
    z.looseObject({
      id: z.string(),
      model: z.string(),
      results: z.array(z.looseObject({ flagged: z.boolean() })),
    }),
    {
      id: "modr-9",
      model: "omni-moderation-2024-09-26",
      results: [{ flagged: true, categories: { violence: true }, category_scores: { violence: 0.97 } }],
    },
  ),
  modelCall(
    "/v1/images/generations",
    "createImage",
    "Image generations (OpenAI)",
    json(imageBody, {
      model: "images",
      prompt: "A lighthouse at dusk",
      n: 2,
      size: "1024x1024",
      quality: "hd",
    }),
    imagesAnswer,
    {
      created: 1_764_000_000,
      data: [{ url: "https://images.example/1.png" }, { url: "https://images.example/2.png" }],
    },
  ),
  mediaCall(
    "/v1/images/edits",
    "createImageEdit",
    "Image edits (OpenAI)",
    "multipart/form-data: the image (or `image[]`, several) and an optional mask, forwarded part for part with their bytes unchanged; the whole body up to MAX_IMAGE_EDIT_BYTES (50 MB). Priced and reserved as generations.",
    {
      contentType: "multipart/form-data",
      schema: z.looseObject({
        model: z.string(),
        prompt: z.string(),
        image: z.string().meta({ format: "binary" }).describe("the image to edit (`image[]` for several)"),
        mask: z.string().meta({ format: "binary" }).optional(),
        n: z.string().optional(),
        size: z.string().optional(),
      }),
    },
    {
      description: "The provider's answer, unchanged.",
      content: json(imagesAnswer, { created: 1_764_000_000, data: [{ b64_json: "iVBORw0KGgo=" }] }),
    },
  ),
  ...(["transcriptions", "translations"] as const).map((kind) =>
    mediaCall(
      `/v1/audio/${kind}`,
      kind === "transcriptions" ? "createTranscription" : "createTranslation",
      `Audio ${kind} (OpenAI)`,
      "multipart/form-data: the audio in `file` (up to MAX_AUDIO_FILE_BYTES, 25 MB) and its fields, forwarded part for part with the file's bytes unchanged. Reserved for the audio's length bounded from its size (1,000 bytes a second); billed by the seconds the answer reports (`json` or `verbose_json`; a text format's length is unknown, so it is unpriced unless the model reports tokens). `stream` is refused.",
      {
        contentType: "multipart/form-data",
        schema: z.looseObject({
          model: z.string(),
          file: z.string().meta({ format: "binary" }).describe("the audio"),
          response_format: z.string().optional(),
        }),
      },
      {
        description: "The provider's answer, unchanged: JSON, or text for `text`, `srt` and `vtt`.",
        content: json(z.looseObject({ text: z.string() }), { text: "Refunds take five working days." }),
      },
    ),
  ),
  mediaCall(
    "/v1/audio/speech",
    "createSpeech",
    "Speech (OpenAI)",
    "JSON in, the provider's audio bytes out under the format's content type (audio/mpeg for mp3). Reserved and billed per character of `input`. `stream_format: \"sse\"` is refused.",
    json(speechBody, { model: "voice", voice: "alloy", input: "Refunds take five working days." }),
    { description: "The audio, byte for byte.", content: { contentType: "audio/mpeg" } },
  ),
  modelCall(
    "/v1/messages",
    "createMessage",
    "Messages (Anthropic)",
    json(anthropicBody, {
      model: "smart",
      max_tokens: 512,
      messages: [{ role: "user", content: "How long do refunds take?" }],
    }),
    z.looseObject({ id: z.string(), type: z.literal("message"), content: z.array(z.unknown()) }),
    { id: "msg_9", type: "message", role: "assistant", content: [{ type: "text", text: "5 working days." }] },
    true,
  ),
  {
    method: "POST",
    path: "/v1/messages/count_tokens",
    route: ROUTE,
    operationId: "countMessageTokens",
    tag: TAG,
    summary: "Count a message's tokens (Anthropic)",
    description:
      "Passed to the alias's first Anthropic candidate (Anthropic does not bill it, so it is no ledger row); an alias without one says so.",
    guard: "api-key",
    params: { headers: anthropicHeaders.pick({ "anthropic-version": true, "anthropic-beta": true }) },
    body: json(anthropicBody.omit({ max_tokens: true }), {
      model: "smart",
      messages: [{ role: "user", content: "How long do refunds take?" }],
    }),
    answers: {
      200: answer("Anthropic's answer.", z.object({ input_tokens: z.number().int() }), { input_tokens: 14 }),
    },
    errorDialect: "anthropic",
    errors: { 400: "no `model`, or the alias has no Anthropic candidate", 404: "`model` is not an alias" },
  },
  {
    method: "GET",
    path: "/v1/models",
    route: ROUTE,
    operationId: "listModels",
    tag: TAG,
    summary: "The model aliases",
    description:
      "Each alias is a model to the caller: OpenAI's list, or Anthropic's when the request carries `anthropic-version`.",
    guard: "api-key",
    params: { headers: z.object({ "anthropic-version": z.string().optional() }) },
    answers: {
      200: answer(
        "The aliases.",
        z.union([
          z.object({
            object: z.literal("list"),
            data: z.array(
              z.object({
                id: z.string(),
                object: z.literal("model"),
                created: z.number().int(),
                owned_by: z.string(),
              }),
            ),
          }),
          z.object({
            data: z.array(
              z.looseObject({ type: z.literal("model"), id: z.string(), display_name: z.string() }),
            ),
            has_more: z.boolean(),
            first_id: z.string().nullable(),
            last_id: z.string().nullable(),
          }),
        ]),
        { object: "list", data: [{ id: "smart", object: "model", created: 1793525400, owned_by: "openai" }] },
      ),
    },
    errorDialect: "openai",
  },
  {
    method: "GET",
    path: "/v1/models/{id}",
    route: ROUTE,
    operationId: "getModel",
    tag: TAG,
    summary: "One model alias",
    guard: "api-key",
    params: {
      path: z.object({ id: z.string().describe("an alias") }),
      headers: z.object({ "anthropic-version": z.string().optional() }),
    },
    answers: {
      200: answer("The alias, in the caller's family's shape.", z.looseObject({ id: z.string() }), {
        id: "smart",
        object: "model",
        created: 1793525400,
        owned_by: "openai",
      }),
    },
    errorDialect: "openai",
    errors: { 404: "not an alias (the message names the ones there are)" },
  },
  {
    method: "GET",
    path: "/v1/prompts/{name}",
    route: ROUTE,
    operationId: "getStoredPrompt",
    tag: TAG,
    summary: "A stored prompt version",
    description:
      "For applications that compile prompts themselves. The `production` label when neither `label` nor `version` is given. " +
      "The ETag lets a client poll cheaply: `If-None-Match` with it answers 304 until the label moves.",
    guard: "api-key",
    params: {
      path: z.object({ name: z.string().describe("the prompt's name (may hold /)") }),
      query: z.object({
        label: z.string().optional(),
        version: z
          .string()
          .regex(/^\d{1,9}$/)
          .optional(),
      }),
      headers: z.object({ "if-none-match": z.string().optional() }),
    },
    answers: {
      200: {
        ...answer(
          "The version.",
          z.looseObject({
            name: z.string(),
            version: z.number().int(),
            type: z.enum(["chat", "text"]),
            config: z.record(z.string(), z.unknown()),
            variables: z.array(z.string()),
            labels: z.array(z.string()),
            createdAt: z.string(),
          }),
          {
            name: "support/triage",
            version: 3,
            type: "chat",
            messages: [{ role: "system", content: "You triage {{product}} tickets." }],
            config: { model: "fast" },
            variables: ["product"],
            labels: ["production"],
            createdAt: AT,
          },
        ),
        headers: { etag: "the version's tag, for If-None-Match" },
      },
      304: { description: "Not modified since the ETag sent." },
    },
    errorDialect: "openai",
    errors: { 400: "give version or label, not both; version must be a number", 404: "prompt_not_found" },
  },
];

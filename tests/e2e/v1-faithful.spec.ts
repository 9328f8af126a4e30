// The faithful gateway through the production build (`next start`): the official OpenAI and Anthropic clients
// against the Next app's /v1, with fakes that show what reached them.
import Anthropic from "@anthropic-ai/sdk";
import { expect, type Page, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_ANTHROPIC, FAKE_UPSTREAM } from "../../playwright.config";
import { apiKey, signInAs } from "./pages";

type Recorded = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
const received = async (page: Page, fake: string): Promise<Recorded[]> =>
  (await (await page.request.get(`${fake}/__control/requests`)).json()).requests;
const reset = async (page: Page) => {
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  await page.request.post(`${FAKE_ANTHROPIC}/__control/reset`);
};

test("the built app carries an OpenAI request whole and its answer back, extra fields included", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const secret = await apiKey(page, baseURL, "e2e faithful");
  await reset(page);
  const answer = {
    id: "chatcmpl-upstream",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_e2e",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: '{"a":"x"}', refusal: null, future_field: 1 },
        logprobs: { content: [], refusal: null },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    brand_new: true,
  };
  await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
    data: { replies: [{ kind: "raw", json: answer }] },
  });
  const body = {
    model: "gpt-fake",
    messages: [{ role: "user", content: "hi", name: "ada" }],
    seed: 3,
    logprobs: true,
    top_logprobs: 2,
    response_format: { type: "json_object" },
    metadata: { team: "e2e" },
    not_yet_invented: { x: [1] },
  };
  const res = await page.request.post("/v1/chat/completions", {
    headers: { authorization: `Bearer ${secret}` },
    data: body,
  });
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual(answer);
  expect(res.headers()["x-tollgate-provider"]).toBe("fake");
  expect(res.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  const [sent] = await received(page, FAKE_UPSTREAM);
  expect(sent!.body).toEqual({ ...body, model: "gpt-4o-mini" });

  // The Anthropic-served alias cannot carry `logprobs`: a 400 naming it, nothing sent.
  const refused = await page.request.post("/v1/chat/completions", {
    headers: { authorization: `Bearer ${secret}` },
    data: { model: "claude-fake", messages: [{ role: "user", content: "hi" }], logprobs: true },
  });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toMatchObject({ code: "unsupported_parameter", param: "logprobs" });
  expect(await received(page, FAKE_ANTHROPIC)).toHaveLength(0);
});

test("the Anthropic SDK talks to the built app's /v1/messages with x-api-key, JSON and streamed", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const secret = await apiKey(page, baseURL, "e2e anthropic");
  await reset(page);
  const claude = new Anthropic({ apiKey: secret, baseURL, maxRetries: 0 });
  const message = await claude.messages.create({
    model: "claude-fake",
    max_tokens: 64,
    system: "Be brief.",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ name: "lookup", input_schema: { type: "object", properties: {} } }],
  });
  expect(message.type).toBe("message");
  expect(message.content[0]).toMatchObject({ type: "text" });
  const stream = claude.messages.stream({
    model: "claude-fake",
    max_tokens: 64,
    messages: [{ role: "user", content: "hi" }],
  });
  const final = await stream.finalMessage();
  expect(final.usage.output_tokens).toBeGreaterThan(0);
  const sent = await received(page, FAKE_ANTHROPIC);
  expect(sent.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
  expect(sent[0]!.body).toMatchObject({ model: "claude-sonnet-4-5", system: "Be brief.", max_tokens: 64 });
  expect(sent[0]!.headers["x-api-key"]).toBe("sk-e2e-fake");
  const id = (await stream.withResponse()).response.headers.get("x-request-id")!;
  await expect
    .poll(async () => (await (await page.request.get(`/api/agent/turns/${id}`)).json()).turn)
    .toMatchObject({ source: "api", status: "success", outputTokens: final.usage.output_tokens });

  // The same key answers Anthropic's model list, and a wrong key gets Anthropic's 401 with our request id.
  expect((await claude.models.list()).data.map((m) => m.id)).toContain("claude-fake");
  const wrong = await page.request.post("/v1/messages", { headers: { "x-api-key": "tg_wrong" }, data: {} });
  expect(wrong.status()).toBe(401);
  expect(wrong.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect((await wrong.json()).error.type).toBe("authentication_error");
});

test("embeddings, the Responses API and models/{id} through the built app", async ({ page, baseURL }) => {
  await signInAs(page, "admin@acme.test");
  const secret = await apiKey(page, baseURL, "e2e endpoints");
  await reset(page);
  const client = new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const embedded = await client.embeddings.create({ model: "gpt-fake", input: "one two" });
  expect(embedded.data[0]!.embedding.length).toBeGreaterThan(0);
  const response = await client.responses.create({ model: "gpt-fake", input: "hi" });
  expect(response.output_text).toBeTruthy();
  expect((await received(page, FAKE_UPSTREAM)).map((r) => r.path)).toEqual([
    "/v1/embeddings",
    "/v1/responses",
  ]);
  expect(await client.models.retrieve("claude-fake")).toMatchObject({ id: "claude-fake", object: "model" });
  await expect(client.models.retrieve("missing")).rejects.toMatchObject({ status: 404 });
});

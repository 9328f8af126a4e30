import { expect, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { signInAs } from "./pages";

test("a tenant admin creates an API key and the official OpenAI client uses it against the running app", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const created = await page.request.post("/api/keys", { data: { name: "e2e client" } });
  expect(created.status()).toBe(201);
  const { secret, key } = await created.json();
  expect(secret).toMatch(/^tg_/);
  const listed = await (await page.request.get("/api/keys")).json();
  expect(JSON.stringify(listed)).not.toContain(secret);

  const client = new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const res = await client.chat.completions.create({
    model: "offline-demo",
    messages: [{ role: "user", content: "hello" }],
  });
  expect(res.choices[0]!.message.content).toContain("offline demo model");
  let streamed = "";
  for await (const chunk of await client.chat.completions.create({
    model: "offline-demo",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  })) {
    streamed += chunk.choices[0]?.delta.content ?? "";
  }
  expect(streamed).toContain("offline demo model");

  // API calls reach the ledger in batches, a few milliseconds after the answer.
  await expect
    .poll(async () => (await (await page.request.get(`/api/agent/turns/${res._request_id}`)).json()).turn)
    .toMatchObject({ source: "api", status: "success" });

  expect((await page.request.delete(`/api/keys/${key.id}`)).status()).toBe(200);
  await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
});

test("a member cannot manage API keys", async ({ page }) => {
  await signInAs(page, "member@acme.test");
  expect((await page.request.get("/api/keys")).status()).toBe(403);
  expect((await page.request.post("/api/keys", { data: { name: "x" } })).status()).toBe(403);
});

test("limits, budgets and the response cache hold against the running app, each call with its ledger row and audit", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  await signInAs(page, "admin@acme.test");
  const newKey = async (name: string) =>
    (await (await page.request.post("/api/keys", { data: { name } })).json()) as {
      secret: string;
      key: { id: string };
    };
  const setLimits = async (keyId: string, limits: Record<string, unknown>) => {
    const res = await page.request.put("/api/governance/limits", {
      data: { scope: "key", subjectId: keyId, ...limits },
    });
    expect(res.status(), await res.text()).toBe(200);
  };
  const ask = (secret: string, content: string, maxTokens?: number) =>
    new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: "gpt-fake", messages: [{ role: "user", content }], max_tokens: maxTokens })
      .withResponse();
  const auditOf = async (turnId: string) =>
    (
      (await (await page.request.get(`/api/schema/agent-audit/rows?f.turnId=${turnId}`)).json()).rows as {
        type: string;
      }[]
    ).map((r) => r.type);
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);

  // Over the per-minute limit: 429 with Retry-After, recorded with a guardrail event.
  const limited = await newKey("e2e limited");
  await setLimits(limited.key.id, { requestsPerMinute: 1 });
  const ok = await ask(limited.secret, "one");
  expect(ok.data.choices[0]!.message.content).toBe("ok");
  const over = await ask(limited.secret, "two").catch((e) => e);
  expect(over).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  const refusedId = over.headers.get("x-request-id") as string;
  await expect
    .poll(async () => (await (await page.request.get(`/api/agent/turns/${refusedId}`)).json()).turn)
    .toMatchObject({ source: "api", status: "failed", errorClass: "rate_limit_exceeded" });
  await expect
    .poll(() => auditOf(refusedId))
    .toEqual(expect.arrayContaining(["request", "guardrail", "error"]));

  // 50 calls race for a daily budget with room for 10: at most 10 get through.
  const racer = await newKey("e2e racer");
  // The pipeline reserves a /v1 call's input at 2 UTF-8 bytes a token of its whole body, as the SDK sends it
  // (ASCII here: bytes = characters), held as one message.
  const sent = JSON.stringify({
    model: "gpt-fake",
    messages: [{ role: "user", content: "race" }],
    max_tokens: 40,
  });
  const inputTokens = Math.ceil(JSON.stringify([{ role: "user", content: sent }]).length / 2);
  const perCall = (inputTokens * 0.15 + 40 * 0.6) / 1e6; // gpt-4o-mini list prices per token, as the fake serves
  await setLimits(racer.key.id, { dailyHardUsd: (perCall * 10).toFixed(10) });
  const reply = { kind: "text", text: "done", usage: { input: inputTokens, output: 40 }, delayMs: 300 };
  const queued = await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
    data: { replies: Array.from({ length: 50 }, () => reply) },
  });
  expect((await queued.json()).queued).toBe(50);
  const results = await Promise.allSettled(Array.from({ length: 50 }, () => ask(racer.secret, "race", 40)));
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  const through = results.filter((r) => r.status === "fulfilled").length;
  // Each call costs exactly what it reserves, so exactly the room is spent, however the 50 interleave.
  expect(through).toBe(10);
  for (const r of results)
    if (r.status === "rejected") expect(r.reason).toMatchObject({ status: 429, code: "budget_exceeded" });

  // The cache: opted in for gpt-fake, an exact repeat is a hit that costs nothing.
  const settings = await (await page.request.get("/api/governance/settings")).json();
  const put = (cacheAliases: string[]) =>
    page.request.put("/api/governance/settings", {
      data: { retentionDays: settings.retentionDays, cacheTtlSeconds: 600, cacheAliases },
    });
  expect((await put(["gpt-fake"])).status()).toBe(200);
  try {
    const cached = await newKey("e2e cache");
    const first = await ask(cached.secret, "What is cached?");
    const second = await ask(cached.secret, "What is cached?");
    expect(second.response.headers.get("x-tollgate-cache")).toBe("hit");
    expect(second.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
    await expect
      .poll(
        async () =>
          (
            await (
              await page.request.get(`/api/agent/turns/${second.response.headers.get("x-request-id")}`)
            ).json()
          ).turn,
      )
      .toMatchObject({ status: "success", cacheHits: 1, inputTokens: 0, outputTokens: 0 });
  } finally {
    await put(settings.cacheAliases);
  }
});

test("the running app passes tools through and answers a bad key and an unknown model in OpenAI's error shapes", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const { secret } = await (await page.request.post("/api/keys", { data: { name: "e2e tools" } })).json();
  const client = new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
    data: {
      replies: [
        { kind: "tool_calls", calls: [{ id: "call_1", name: "lookup_invoice", args: { number: "INV-7" } }] },
      ],
    },
  });
  const res = await client.chat.completions.create({
    model: "gpt-fake",
    messages: [{ role: "user", content: "find INV-7" }],
    tools: [
      {
        type: "function",
        function: {
          name: "lookup_invoice",
          parameters: { type: "object", properties: { number: { type: "string" } } },
        },
      },
    ],
  });
  expect(res.choices[0]!.finish_reason).toBe("tool_calls");
  expect(res.choices[0]!.message.tool_calls?.[0]).toMatchObject({
    id: "call_1",
    function: { name: "lookup_invoice", arguments: '{"number":"INV-7"}' },
  });
  const turnId = res._request_id!;
  await expect
    .poll(async () =>
      (
        (await (await page.request.get(`/api/schema/agent-audit/rows?f.turnId=${turnId}`)).json()).rows as {
          type: string;
        }[]
      )
        .map((r) => r.type)
        .sort(),
    )
    .toEqual(["request", "tool_call"]);

  const unknown = await client.chat.completions
    .create({ model: "gpt-9", messages: [{ role: "user", content: "x" }] })
    .catch((e) => e);
  expect(unknown).toMatchObject({ status: 404, code: "model_not_found" });
  expect(unknown.message).toContain("offline-demo");
  const bad = new OpenAI({ apiKey: "tg_wrong", baseURL: `${baseURL}/v1`, maxRetries: 0 });
  await expect(bad.models.list()).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
});

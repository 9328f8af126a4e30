// The gateway against failing providers and hostile input, through the production build (`next start`), where
// class names are minified and Next, not our lean server, reads the request body.
import { expect, type Page, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { postEndless } from "../helpers/endless-body";
import { apiKey, signInAs } from "./pages";

const ledgerRow = (page: Page, turnId: string) =>
  expect.poll(async () => (await (await page.request.get(`/api/agent/turns/${turnId}`)).json()).turn);

const auditTypes = async (page: Page, turnId: string) =>
  (
    (await (await page.request.get(`/api/schema/agent-audit/rows?f.turnId=${turnId}`)).json()).rows as {
      type: string;
    }[]
  ).map((r) => r.type);

test("the built app falls back past a provider that refuses connections, and records the fallback", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const client = new OpenAI({
    apiKey: await apiKey(page, baseURL, "e2e fallback"),
    baseURL: `${baseURL}/v1`,
    maxRetries: 0,
  });
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);

  const res = await client.chat.completions.create({
    model: "gpt-fallback",
    messages: [{ role: "user", content: "hello" }],
  });
  expect(res.choices[0]!.message.content).toBe("ok");
  const turnId = res._request_id!;
  await ledgerRow(page, turnId).toMatchObject({
    status: "success",
    fallbackIndex: 1,
    servedProvider: "fake",
  });
  await expect.poll(async () => (await auditTypes(page, turnId)).sort()).toEqual(["fallback", "request"]);

  let streamed = "";
  for await (const chunk of await client.chat.completions.create({
    model: "gpt-fallback",
    messages: [{ role: "user", content: "hello again" }],
    stream: true,
  })) {
    streamed += chunk.choices[0]?.delta.content ?? "";
  }
  expect(streamed).toBe("ok");
});

test("/v1 refuses hostile input with a 4xx in OpenAI's shape, and mints its own request id", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  const secret = await apiKey(page, baseURL, "e2e hostile");
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  const post = (data: string, headers: Record<string, string> = {}) =>
    page.request.post("/v1/chat/completions", {
      data,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
    });

  for (const model of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    const res = await post(JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }));
    expect(res.status()).toBe(404);
    expect((await res.json()).error).toMatchObject({
      code: "model_not_found",
      message: expect.stringContaining("gpt-fallback"),
    });
  }

  const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
  const tooDeep = await post(
    `{"model":"gpt-fake","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":${deep}}}]}`,
  );
  expect(tooDeep.status()).toBe(400);
  expect((await tooDeep.json()).error).toMatchObject({
    code: "json_too_deep",
    type: "invalid_request_error",
  });

  // A body that never ends (chunked, no Content-Length) is refused at 10 MB while it streams in.
  const huge = await postEndless(`${baseURL}/v1/chat/completions`, { authorization: `Bearer ${secret}` });
  expect(huge).toMatchObject({ status: 413, ended: false });
  expect(JSON.parse(huge.body).error).toMatchObject({
    code: "request_too_large",
    type: "invalid_request_error",
  });

  const ours = await post(
    JSON.stringify({ model: "gpt-fake", messages: [{ role: "user", content: "hi" }] }),
    {
      "x-request-id": "client-chosen",
    },
  );
  expect(ours.status()).toBe(200);
  expect(ours.headers()["x-request-id"]).not.toBe("client-chosen");
  // Our id is the header (the ledger row's); the answer's own id is the provider's, passed through.
  expect(ours.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect((await ours.json()).id).toMatch(/^chatcmpl-/);
});

test("the app's JSON routes refuse oversized and deeply nested bodies with 413 and 400", async ({
  request,
  baseURL,
}) => {
  const headers = {
    "content-type": "application/json",
    origin: baseURL ?? "",
    "x-request-id": "client-chosen",
  };
  const big = await request.post("/api/login", {
    data: JSON.stringify({ email: "a@b.test", password: "x".repeat(2 * 1024 * 1024) }),
    headers,
  });
  expect(big.status()).toBe(413);
  const body = await big.json();
  expect(body.error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("1 MB") });
  expect(body.error.requestId).not.toBe("client-chosen");

  const deep = await request.post("/api/login", {
    data: `{"email":${"[".repeat(5000)}${"]".repeat(5000)}}`,
    headers,
  });
  expect(deep.status()).toBe(400);
  expect((await deep.json()).error.message).toMatch(/64 levels/);
});

import { expect, test } from "@playwright/test";
import OpenAI from "openai";
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

  const turn = await (await page.request.get(`/api/agent/turns/${res.id.replace("chatcmpl-", "")}`)).json();
  expect(turn.turn).toMatchObject({ source: "api", status: "success" });

  expect((await page.request.delete(`/api/keys/${key.id}`)).status()).toBe(200);
  await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
});

test("a member cannot manage API keys", async ({ page }) => {
  await signInAs(page, "member@acme.test");
  expect((await page.request.get("/api/keys")).status()).toBe(403);
  expect((await page.request.post("/api/keys", { data: { name: "x" } })).status()).toBe(403);
});

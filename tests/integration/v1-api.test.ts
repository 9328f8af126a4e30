import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { createApiKey, revokeApiKey } from "@/features/keys/server/keys";
import { createV1Core } from "@/features/v1/server/handler";
import { clearApiKeyCache } from "@/lib/auth/api-keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

describe.each(testDbKinds)("the OpenAI-compatible API through the lean server on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let baseURL: string;
  let secret: string;
  let keyId: string;
  let acme: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    server = createServer(
      serveApi(
        createV1Core({
          db,
          gateway: () => gateway,
          pipeline: new Pipeline({
            db,
            gateway: () => gateway,
            counters: () => new PostgresCounters(db),
            cache: () => new PostgresResponseCache(db),
          }),
          recorder,
        }),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    acme = await app.tenantId("acme");
    const created = await createApiKey(app.db, {
      tenantId: acme,
      name: "billing app",
      createdBy: await app.userId("admin@acme.test"),
    });
    secret = created.secret;
    keyId = created.key.id;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await upstream.close();
    await app.close();
  });
  beforeEach(() => upstream.reset());

  const client = (apiKey = secret) => new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const turnsOfKey = async () => {
    await recorder.flush();
    return app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, keyId));
  };

  it("answers a completion in OpenAI's shape and records a ledger row and audit events", async () => {
    upstream.enqueue({
      kind: "text",
      text: "Hello from upstream.",
      usage: { input: 30, cached: 10, output: 5 },
    });
    const res = await client().chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(res.choices[0]!.message.content).toBe("Hello from upstream.");
    expect(res.model).toBe("gpt-4o-mini-2024-07-18");
    expect(res.usage).toMatchObject({
      prompt_tokens: 40,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 10 },
    });
    const turnId = res._request_id!;
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    expect(row).toMatchObject({
      source: "api",
      status: "success",
      tenantId: acme,
      apiKeyId: keyId,
      inputTokens: 30,
      cachedInputTokens: 10,
    });
    const events = await app.db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, turnId));
    expect(events.map((e) => e.type)).toEqual(["request"]);
  });

  it("streams, ending with the usage chunk and [DONE]", async () => {
    upstream.enqueue({ kind: "text", text: "one two three", usage: { input: 7, output: 3 } });
    const stream = await client().chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("one two three");
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
  });

  it("passes tools through and returns the model's tool call for the client to run", async () => {
    upstream.enqueue({
      kind: "tool_calls",
      calls: [{ id: "call_9", name: "lookup_invoice", args: { number: "INV-7" } }],
    });
    const res = await client().chat.completions.create({
      model: "team-gpt",
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
      id: "call_9",
      function: { name: "lookup_invoice", arguments: '{"number":"INV-7"}' },
    });
    expect(JSON.stringify(upstream.requests[0]!.body.tools)).toContain("lookup_invoice");
    const turnId = res._request_id!;
    await recorder.flush();
    const events = await app.db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, turnId));
    expect(events.map((e) => e.type).sort()).toEqual(["request", "tool_call"]);
  });

  it("answers a bad key and a revoked key with 401, and an unknown model with 404 naming the aliases", async () => {
    await expect(client("tg_not-a-real-key").models.list()).rejects.toMatchObject({
      status: 401,
      code: "invalid_api_key",
    });
    const unknown = await client()
      .chat.completions.create({ model: "gpt-9", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e);
    expect(unknown).toMatchObject({ status: 404, code: "model_not_found" });
    expect(unknown.message).toContain("Available: team-gpt");
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(["team-gpt"]);

    const spare = await createApiKey(app.db, {
      tenantId: acme,
      name: "spare",
      createdBy: await app.userId("admin@acme.test"),
    });
    await client(spare.secret).models.list();
    await revokeApiKey(app.db, { tenantId: acme, id: spare.key.id });
    await expect(client(spare.secret).models.list()).rejects.toMatchObject({ status: 401 });
  });

  it("fails a stream cut by the upstream with an error, never a quiet [DONE], and records it as failed", async () => {
    upstream.enqueue({ kind: "cut", text: "partial answer here", afterChunks: 2 });
    const stream = await client().chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const error = await (async () => {
      for await (const _ of stream) {
        // read until it fails
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error.message)).toMatch(/cut off/);
    // The ledger row is closed right after the error reaches the client.
    await expect
      .poll(async () =>
        (await turnsOfKey()).some((r) => r.status === "failed" && r.errorClass === "stream_interrupted"),
      )
      .toBe(true);
  });

  it("refuses a malformed body with a 400 naming the field", async () => {
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "team-gpt", messages: [] }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      message: "messages: messages must be a non-empty array",
      param: "messages",
    });
    clearApiKeyCache();
  });
});

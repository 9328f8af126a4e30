import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { asc, eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { createV1Core, v1WebHandler } from "@/features/v1/server/handler";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import type { ApiHandler } from "@/lib/http/exchange";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { postEndless } from "../helpers/endless-body";

/** A 127.0.0.1 port nothing listens on. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe.each(testDbKinds)("/v1 against hostile input and failing providers on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let baseURL: string;
  let secret: string;
  let recorder: BatchedGovernanceRecorder;
  let handler: (req: Request) => Promise<Response>;
  let core: ApiHandler;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            up: { type: "openai", baseUrl: upstream.url },
            dead: { type: "openai", baseUrl: `http://127.0.0.1:${await deadPort()}/v1` },
          },
          models: {
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
            "with-fallback": {
              candidates: [
                { provider: "dead", model: "gpt-4o-mini" },
                { provider: "up", model: "gpt-4o-mini" },
              ],
            },
          },
          retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
          cooldown: { consecutiveFailures: 100, minCallsForRate: 100 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    core = createV1Core({
      db,
      gateway: () => gateway,
      pipeline: new Pipeline({
        db,
        gateway: () => gateway,
        counters: () => new PostgresCounters(db),
        cache: () => new PostgresResponseCache(db),
      }),
      recorder,
    });
    handler = v1WebHandler(core);
    server = createServer(serveApi(core));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const created = await createApiKey(app.db, {
      tenantId: await app.tenantId("acme"),
      name: "hardening",
      createdBy: await app.userId("admin@acme.test"),
    });
    secret = created.secret;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await upstream.close();
    await app.close();
  });
  beforeEach(() => upstream.reset());

  const client = () => new OpenAI({ apiKey: secret, baseURL, maxRetries: 0 });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const auditOf = async (turnId: string) => {
    await recorder.flush();
    return app.db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.turnId, turnId))
      .orderBy(asc(sysAgentAudit.seq));
  };
  const turn = async (turnId: string) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    return row;
  };

  it("answers model names that live on Object.prototype with 404 model_not_found naming the aliases", async () => {
    for (const model of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const res = await post({ model, messages: [{ role: "user", content: "hi" }] });
      expect(res.status).toBe(404);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: "model_not_found", param: "model" });
      expect(error.message).toContain("Available: team-gpt, with-fallback");
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses tool parameters nested 5,000 levels deep with a 400, not a stack overflow", async () => {
    const res = await post(
      `{"model":"team-gpt","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":${nested(5000)}}}]}`,
    );
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: "json_too_deep", type: "invalid_request_error" });
    expect(error.message).toMatch(/more than 64 levels/);
    // Tool-call arguments in the history are JSON too, and held to the same limit.
    const args = await post({
      model: "team-gpt",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: nested(100) } }],
        },
        { role: "tool", tool_call_id: "c1", content: "ok" },
      ],
    });
    expect(args.status).toBe(400);
    expect((await args.json()).error).toMatchObject({
      code: "json_too_deep",
      param: "messages.1.tool_calls.0.function.arguments",
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses a 20 MB body with 413 in OpenAI's shape, on the lean server and in the fetch handler Next mounts", async () => {
    const lean = await postEndless(`${baseURL}/chat/completions`, { authorization: `Bearer ${secret}` });
    expect(lean).toMatchObject({ status: 413, ended: false });
    expect(JSON.parse(lean.body).error).toMatchObject({
      code: "request_too_large",
      message: expect.stringContaining("10 MB"),
    });

    // The handler itself (app/v1 under Next) reads the stream and stops at the limit: no Content-Length here.
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        if (pulled > 20 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await handler(
      new Request(`${baseURL}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}` },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("request_too_large");
    expect(pulled).toBeLessThan(20 * 1024 * 1024);
    expect(upstream.requests).toHaveLength(0);
  });

  it("mints its own request id (the ledger row's), whatever x-request-id the client sends", async () => {
    const res = await post(
      { model: "team-gpt", messages: [{ role: "user", content: "hi" }] },
      { "x-request-id": "client-chosen" },
    );
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id")!;
    expect(id).not.toBe("client-chosen");
    // The answer's own id is the provider's, passed through unchanged; ours is the header.
    expect((await res.json()).id).toMatch(/^chatcmpl-/);
    expect(await turn(id)).toMatchObject({ status: "success" });
    // Refusals carry our id too.
    const refused = await fetch(`${baseURL}/models`, { headers: { "x-request-id": "client-chosen" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("records a `fallback` audit event for a JSON answer that fell back, naming the candidate that failed", async () => {
    upstream.enqueue({ kind: "text", text: "from the healthy one" });
    const res = await client().chat.completions.create({
      model: "with-fallback",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(res.choices[0]!.message.content).toBe("from the healthy one");
    const turnId = res._request_id!;
    const events = await auditOf(turnId);
    expect(events.map((e) => e.type)).toEqual(["request", "fallback"]);
    expect(events[1]!.payload).toMatchObject({
      message: expect.stringContaining("dead/gpt-4o-mini failed (connection)"),
    });
    expect(await turn(turnId)).toMatchObject({ fallbackIndex: 1, attempts: 3, status: "success" });

    // A stream says so the same way.
    upstream.enqueue({ kind: "text", text: "streamed" });
    const { data: stream, response } = await client()
      .chat.completions.create({
        model: "with-fallback",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })
      .withResponse();
    for await (const _ of stream) {
    }
    const streamId = response.headers.get("x-request-id")!;
    expect((await auditOf(streamId)).map((e) => e.type)).toEqual(["request", "fallback"]);
  });

  it("records the tokens of a stream cut mid-answer (estimated from what was streamed) as failed, not 0", async () => {
    upstream.enqueue({ kind: "cut", text: "a partial answer that was cut off here", afterChunks: 4 });
    const body = {
      model: "team-gpt",
      messages: [{ role: "user" as const, content: "tell me something long" }],
      stream: true as const,
    };
    const { data: stream, response } = await client().chat.completions.create(body).withResponse();
    const id = response.headers.get("x-request-id")!;
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e) => e);
    expect(String(error?.message)).toMatch(/cut off/);
    await expect.poll(async () => (await turn(id))?.status).toBe("failed");
    const row = await turn(id);
    expect(row).toMatchObject({
      errorClass: "stream_interrupted",
      outputTokens: Math.ceil(text.length / 4),
      // The input is estimated from the whole body the caller sent (all of it is billed).
      inputTokens: Math.ceil(JSON.stringify(body).length / 4),
      errorMessage: expect.stringContaining("estimated"),
    });
    expect(Number(row!.cost)).toBeGreaterThan(0);
  });
});

import { and, desc, eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, membership, promptVersion, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const prompts = await import("@/app/api/prompts/route");
const onePrompt = await import("@/app/api/prompts/[...path]/route");
const turns = await import("@/app/api/agent/turns/route");

const json = (method: string, body?: unknown) =>
  new Request("http://app/api/x", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const noParams = { params: Promise.resolve({}) };
const at = (path: string) => ({ params: Promise.resolve({ path: path.split("/") }) });

describe.each(testDbKinds)("the prompt store on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    await app.rebuild({
      gateway: parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: {
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
            "team-big": { candidates: [{ provider: "up", model: "gpt-4o" }] },
          },
          defaultModel: "team-gpt",
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    });
  });
  afterAll(async () => {
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.setDefault({ kind: "text", text: "an answer", usage: { input: 100, output: 20 } });
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  const create = async (body: Record<string, unknown>) => prompts.POST(json("POST", body), noParams);
  const move = (name: string, label: string, version: number) =>
    onePrompt.PUT(json("PUT", { version }), at(`${name}/labels/${label}`));
  const changes = (objectId: string) =>
    app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectType, "prompt"), eq(adminChange.objectId, objectId)))
      .orderBy(adminChange.createdAt);

  it("writes immutable numbered versions, keeps latest, and logs every version and label move", async () => {
    await as("admin@acme.test");
    const first = await create({
      name: "support/triage",
      type: "chat",
      messages: [
        { role: "system", content: "You triage tickets for {{company}}." },
        { role: "user", content: "{{ticket}}" },
      ],
      config: { model: "team-big", temperature: 0.2 },
      labels: ["production"],
      message: "first cut",
    });
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({
      name: "support/triage",
      version: 1,
      labels: ["latest", "production"],
    });
    const second = await create({
      name: "support/triage",
      type: "chat",
      messages: [{ role: "system", content: "You triage tickets for {{company}}, politely." }],
      message: "be polite",
    });
    expect((await second.json()).version).toBe(2);

    const v1 = await (
      await onePrompt.GET(new Request("http://app/x?version=1"), at("support/triage"))
    ).json();
    expect(v1.version).toMatchObject({
      version: 1,
      messages: [
        { role: "system", content: "You triage tickets for {{company}}." },
        { role: "user", content: "{{ticket}}" },
      ],
      variables: ["company", "ticket"],
      labels: ["production"],
      createdBy: "admin@acme.test",
      message: "first cut",
    });
    const all = await (await onePrompt.GET(new Request("http://app/x"), at("support/triage"))).json();
    expect(all.labels).toEqual({ latest: 2, production: 1 });
    expect(all.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const list = await (await prompts.GET(new Request("http://app/x"), noParams)).json();
    expect(list.prompts).toContainEqual(
      expect.objectContaining({
        name: "support/triage",
        latestVersion: 2,
        labels: { latest: 2, production: 1 },
      }),
    );

    // Promote v2, then roll back: each move is a change row with before and after.
    expect((await move("support/triage", "production", 2)).status).toBe(200);
    const rollback = await move("support/triage", "production", 1);
    expect(await rollback.json()).toMatchObject({ label: "production", version: 1, previous: 2 });
    const log = await changes("support/triage");
    expect(log.map((c) => c.action)).toEqual([
      "prompt.version_created",
      "prompt.label_moved",
      "prompt.version_created",
      "prompt.label_moved",
      "prompt.label_moved",
    ]);
    expect(log.at(-1)).toMatchObject({
      before: { label: "production", version: 2 },
      after: { label: "production", version: 1 },
      actorEmail: "admin@acme.test",
    });
    // Version 1 is exactly as written, whatever happened since.
    const [row] = await app.db
      .select()
      .from(promptVersion)
      .where(and(eq(promptVersion.tenantId, acme), eq(promptVersion.version, 1)));
    expect(row!.messages![0]!.content).toBe("You triage tickets for {{company}}.");
  });

  it("refuses production to members and writes to non-editors; an editor may write and move other labels", async () => {
    await as("admin@acme.test");
    await create({ name: "faq", type: "text", text: "Answer from the FAQ: {{question}}" });
    await as("member@acme.test");
    expect((await onePrompt.GET(new Request("http://app/x"), at("faq"))).status).toBe(200);
    const refused = await create({ name: "faq", type: "text", text: "mine" });
    expect(refused.status).toBe(403);
    expect((await move("faq", "staging", 1)).status).toBe(403);

    const member = await app.userId("member@acme.test");
    await app.db
      .update(membership)
      .set({ promptEditor: true })
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
    expect((await create({ name: "faq", type: "text", text: "Answer kindly: {{question}}" })).status).toBe(
      201,
    );
    expect((await move("faq", "staging", 2)).status).toBe(200);
    const prod = await move("faq", "production", 2);
    expect(prod.status).toBe(403);
    expect((await prod.json()).error.message).toContain("production");
    const latest = await move("faq", "latest", 1);
    expect(latest.status).toBe(422);
    await app.db
      .update(membership)
      .set({ promptEditor: false })
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
  });

  it("keeps tenants apart: another tenant's prompt is 404", async () => {
    await as("admin@globex.test", "globex");
    expect((await onePrompt.GET(new Request("http://app/x"), at("faq"))).status).toBe(404);
    expect((await move("faq", "staging", 1)).status).toBe(404);
    const list = await (await prompts.GET(new Request("http://app/x"), noParams)).json();
    expect(list.prompts).toEqual([]);
    expect(globex).not.toBe(acme);
  });

  it("refuses bad input by name, and archives only unlabelled versions", async () => {
    await as("admin@acme.test");
    const bad = async (body: Record<string, unknown>) => {
      const res = await create(body);
      expect(res.status).toBe(422);
      return Object.keys((await res.json()).error.fields);
    };
    expect(await bad({ name: "a/labels/b", type: "text", text: "x" })).toEqual(["name"]);
    expect(await bad({ name: "x\u0000", type: "text", text: "x" })).toEqual(["name"]);
    expect(await bad({ name: "x", type: "chat", messages: [] })).toEqual(["messages"]);
    expect(await bad({ name: "x", type: "text", text: "x", labels: ["Prod"] })).toEqual(["labels.0"]);
    expect(await bad({ name: "x", type: "text", text: "x", config: { temperature: 9 } })).toEqual([
      "config.temperature",
    ]);
    const changedType = await create({
      name: "faq",
      type: "chat",
      messages: [{ role: "user", content: "x" }],
    });
    expect(changedType.status).toBe(409);
    const assistantChat = await create({
      name: "assistant",
      type: "chat",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(assistantChat.status).toBe(422);

    const labelled = await onePrompt.DELETE(json("DELETE"), at("faq/versions/2"));
    expect(labelled.status).toBe(409);
    expect((await labelled.json()).error.message).toContain("latest");
    expect((await onePrompt.DELETE(json("DELETE"), at("faq/versions/1"))).status).toBe(200);
    const versions = await (await onePrompt.GET(new Request("http://app/x"), at("faq"))).json();
    expect(versions.versions.map((v: { archived: boolean }) => v.archived)).toEqual([false, true]);
  });

  describe("on /v1", () => {
    let apiKey: string;
    let client: OpenAI;
    beforeAll(async () => {
      const created = await createApiKey(app.db, {
        tenantId: acme,
        name: "prompt-app",
        createdBy: await app.userId("admin@acme.test"),
      });
      apiKey = created.secret;
      client = new OpenAI({
        apiKey,
        baseURL: "http://app/v1",
        maxRetries: 0,
        fetch: (url, init) => app.container.v1.handler(new Request(url, init)),
      });
    });
    const ledgerRow = async (id: string) => {
      await app.container.v1.flush();
      const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
      return row!;
    };

    it("compiles a prompt reference before the caller's messages, fills unset parameters, and records the version", async () => {
      const res = await client.chat.completions
        .create({
          messages: [{ role: "user", content: "and quickly" }],
          prompt: { id: "support/triage", variables: { company: "Acme", ticket: "my order is late" } },
        } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      expect(res.data.choices[0]!.message.content).toBe("an answer");
      const sent = upstream.requests[0]!.body;
      // production is v1 (rolled back above): its two messages, then the caller's.
      expect(sent.messages).toEqual([
        { role: "system", content: "You triage tickets for Acme." },
        { role: "user", content: "my order is late" },
        { role: "user", content: "and quickly" },
      ]);
      expect(sent.model).toBe("gpt-4o");
      expect(sent.temperature).toBe(0.2);
      expect(sent).not.toHaveProperty("prompt");
      const row = await ledgerRow(res.response.headers.get("x-request-id")!);
      expect(row).toMatchObject({
        promptName: "support/triage",
        promptVersion: 1,
        requestedModel: "team-big",
      });
    });

    it("lets the caller's own parameters win, and takes a version or a label", async () => {
      await client.chat.completions.create({
        model: "team-gpt",
        temperature: 1,
        messages: [{ role: "user", content: "hi" }],
        prompt: { id: "support/triage", version: "2", variables: { company: "Globex" } },
      } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
      const sent = upstream.requests[0]!.body;
      expect(sent).toMatchObject({ model: "gpt-4o-mini", temperature: 1 });
      expect((sent.messages as { content: string }[])[0]!.content).toBe(
        "You triage tickets for Globex, politely.",
      );
    });

    it("answers 400 naming a missing variable, 404 for an unknown prompt, nothing sent upstream", async () => {
      const missing = await client.chat.completions
        .create({
          messages: [{ role: "user", content: "hi" }],
          prompt: { id: "support/triage", variables: { company: "Acme" } },
        } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OpenAI.BadRequestError);
      expect((missing as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("ticket");
      expect((missing as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("prompt.variables.ticket");
      const unknown = await client.chat.completions
        .create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
          prompt: { id: "nope", label: "staging" },
        } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
      expect((unknown as Error).message).toContain('prompt "nope" with label "staging"');
      expect(upstream.requests).toHaveLength(0);
    });

    it("serves a prompt to applications with an ETag that answers 304 until the label moves", async () => {
      const get = (headers: Record<string, string> = {}) =>
        app.container.v1.handler(
          new Request("http://app/v1/prompts/support/triage?label=production", {
            headers: { authorization: `Bearer ${apiKey}`, ...headers },
          }),
        );
      const first = await get();
      expect(first.status).toBe(200);
      const body = await first.json();
      expect(body).toMatchObject({ name: "support/triage", version: 1, variables: ["company", "ticket"] });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^".+"$/);
      const again = await get({ "if-none-match": etag });
      expect(again.status).toBe(304);
      await as("admin@acme.test");
      await move("support/triage", "production", 2);
      const moved = await get({ "if-none-match": etag });
      expect(moved.status).toBe(200);
      expect((await moved.json()).version).toBe(2);
      expect(
        (
          await app.container.v1.handler(
            new Request("http://app/v1/prompts/support/triage", {
              headers: { authorization: "Bearer nope" },
            }),
          )
        ).status,
      ).toBe(401);
      await move("support/triage", "production", 1);
    });

    it("takes a prompt on /v1/responses as the first input items", async () => {
      upstream.setDefault({ kind: "text", text: "a response", usage: { input: 10, output: 5 } });
      const res = await client.responses.create({
        model: "team-gpt",
        input: "the rest",
        prompt: { id: "faq", version: "2", variables: { question: "opening hours?" } },
      });
      expect(res.output_text).toBe("a response");
      const sent = upstream.requests[0]!.body as Record<string, unknown>;
      expect(JSON.stringify(sent)).toContain("Answer kindly: opening hours?");
      expect(JSON.stringify(sent)).toContain("the rest");
      expect(sent).not.toHaveProperty("prompt");
    });
  });

  it("the drawer answers with the tenant's assistant prompt and records its version", async () => {
    await as("admin@acme.test");
    await create({
      name: "assistant",
      type: "text",
      text: "You are the {{tenant}} helper. Today is {{date}}.",
      labels: ["production"],
    });
    const res = await turns.POST(json("POST", { message: "hello there" }), noParams);
    expect(res.status).toBe(200);
    await res.text();
    const system = (upstream.requests[0]!.body.messages as { role: string; content: string }[])[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toMatch(/^You are the Acme helper\. Today is \d{4}-\d{2}-\d{2}\./);
    const [row] = await app.db
      .select()
      .from(sysAgentTurn)
      .where(and(eq(sysAgentTurn.tenantId, acme), eq(sysAgentTurn.source, "drawer")))
      .orderBy(desc(sysAgentTurn.startedAt))
      .limit(1);
    expect(row).toMatchObject({ promptName: "assistant", promptVersion: 1, status: "success" });
  });

  it("runs the playground as a metered call with its own ledger row", async () => {
    await as("member@acme.test");
    const res = await onePrompt.POST(
      json("POST", { version: 2, variables: { question: "refunds?" }, model: "team-gpt" }),
      at("faq/run"),
    );
    expect(res.status).toBe(200);
    const { run } = await res.json();
    expect(run).toMatchObject({
      status: "success",
      answer: "an answer",
      usage: { inputTokens: 100, outputTokens: 20 },
    });
    expect(Number(run.cost)).toBeGreaterThan(0);
    expect(upstream.requests[0]!.body.messages).toEqual([
      { role: "user", content: "Answer kindly: refunds?" },
    ]);
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, run.turnId));
    expect(row).toMatchObject({
      source: "playground",
      promptName: "faq",
      promptVersion: 2,
      status: "success",
    });
    const missing = await onePrompt.POST(json("POST", { version: 2, variables: {} }), at("faq/run"));
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.fields).toHaveProperty(["variables.question"]);
  });

  it("compares a prompt's versions from the ledger: calls, failures, cost per call, latency percentiles", async () => {
    await as("member@acme.test");
    const res = await onePrompt.GET(new Request("http://app/x?days=7"), at("support/triage/stats"));
    expect(res.status).toBe(200);
    const { versions } = await res.json();
    expect(versions.map((v: { version: number; calls: number }) => [v.version, v.calls])).toEqual([
      [2, 1],
      [1, 1],
    ]);
    for (const v of versions) {
      expect(v.failureRate).toBe(0);
      expect(Number(v.costPerCall)).toBeGreaterThan(0);
      expect(v.costPerCall).toBe(v.cost);
      expect(v.p95LatencyMs).toBeGreaterThanOrEqual(v.p50LatencyMs);
    }
    const bad = await onePrompt.GET(new Request("http://app/x?days=900"), at("support/triage/stats"));
    expect(bad.status).toBe(422);
  });

  it("filters the ledger by prompt and version, and suggests only the tenant's own prompt names", async () => {
    const get = schemaJson;
    await as("admin@acme.test");
    const v1 = await get("agent-turns/rows?f.promptName=support%2Ftriage&f.promptVersion=1");
    expect(v1.status).toBe(200);
    expect(v1.body.rows.length).toBeGreaterThan(0);
    for (const row of v1.body.rows)
      expect(row).toMatchObject({
        promptName: "support/triage",
        promptVersion: 1,
        prompt: "support/triage v1",
      });
    const playground = await get("agent-turns/rows?f.source=playground");
    expect(playground.body.rows.map((r: { promptName: string }) => r.promptName)).toEqual(["faq"]);
    const bad = await get("agent-turns/rows?f.promptVersion=two");
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty(["f.promptVersion"]);
    const names = await get("agent-turns/suggest?field=promptName&q=tri");
    expect(names.body.values.map((v: { value: string }) => v.value)).toEqual(["support/triage"]);
    await as("admin@globex.test", "globex");
    const theirs = await get("agent-turns/suggest?field=promptName&q=tri");
    expect(theirs.body.values).toEqual([]);
    expect((await get("agent-turns/rows?f.promptName=support%2Ftriage")).body.rows).toEqual([]);
  });
});

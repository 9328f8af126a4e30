import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { eq } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { TURN_ID_META } from "@/features/mcp/server/endpoint/handler";
import { turnReplay } from "@/features/replay/server";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { callSummary } from "@/lib/turns/events";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson } from "../helpers/schema-api";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";
import { serveRoutes } from "../helpers/web-server";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const skills = await import("@/app/api/skills/route");
const mcpRoute = await import("@/app/mcp/route");

const post = (body: unknown) =>
  new Request("http://app/api/skills", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const noParams = { params: Promise.resolve({}) };
const loadCall = (name: string, id = "c1") => ({
  kind: "tool_calls" as const,
  calls: [{ id, name: "skill_load", args: { name } }],
});

describe.each(testDbKinds)("skills on the ledger on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Awaited<ReturnType<typeof serveRoutes>>;
  const tenants = { acme: "", globex: "" };
  /** The turns each test made, by what they did. */
  const turn = {
    acmeLoaded: "",
    acmeFailed: "",
    acmePlain: "",
    acmeMcp: "",
    globexLoaded: "",
    globexBatched: "",
  };

  const as = async (email: string, slug: "acme" | "globex") => {
    session.claims = { userId: await app.userId(email), tenantId: tenants[slug] };
  };
  /** A drawer turn as the signed-in user: its id, once its ledger row is closed (before `done`). */
  const drawerTurn = async (message: string) => {
    const frames = await readSse(await postTurn({ message }));
    return String(frames.find((f) => f.event === "turn")!.data.turnId);
  };
  const rowOf = async (id: string) =>
    (await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id)))[0]!;
  const ids = async (path: string) => {
    const { status, body } = await schemaJson(path);
    expect(status, JSON.stringify(body)).toBe(200);
    return (body.rows as { id: string }[]).map((r) => r.id);
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    tenants.acme = await app.tenantId("acme");
    tenants.globex = await app.tenantId("globex");
    await app.rebuild({
      gateway: parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          defaultModel: "team-gpt",
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    });
    server = await serveRoutes({ POST: mcpRoute.POST, GET: mcpRoute.GET, DELETE: mcpRoute.DELETE });
    // Both tenants have a skill called "refunds": acme's at version 2, globex's at version 1.
    await as("admin@acme.test", "acme");
    for (const instructions of ["v1", "v2"])
      expect(
        (await skills.POST(post({ name: "refunds", description: "Refunds", instructions }), noParams)).status,
      ).toBe(201);
    await as("admin@globex.test", "globex");
    expect(
      (await skills.POST(post({ name: "refunds", description: "Refunds", instructions: "g1" }), noParams))
        .status,
    ).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.setDefault({ kind: "text", text: "an answer", usage: { input: 100, output: 20 } });
  });

  it("records the skill and the version a drawer turn loaded on its ledger row, and none on a turn that loaded none", async () => {
    await as("member@acme.test", "acme");
    upstream.enqueue(loadCall("refunds"), loadCall("refunds", "c2"), { kind: "text", text: "45 days." });
    turn.acmeLoaded = await drawerTurn("can I get a refund?");
    const loaded = await rowOf(turn.acmeLoaded);
    expect(loaded).toMatchObject({
      status: "success",
      source: "drawer",
      skills: ["refunds"],
      skillVersions: [2],
    });

    turn.acmePlain = await drawerTurn("hello");
    expect(await rowOf(turn.acmePlain)).toMatchObject({ status: "success", skills: [], skillVersions: [] });
  });

  it("keeps the skill on a turn that failed after loading it", async () => {
    await as("member@acme.test", "acme");
    upstream.enqueue(loadCall("refunds"), { kind: "error", status: 500, message: "upstream broke" });
    turn.acmeFailed = await drawerTurn("refund please");
    expect(await rowOf(turn.acmeFailed)).toMatchObject({
      status: "failed",
      skills: ["refunds"],
      skillVersions: [2],
    });
  });

  it("records a skill loaded over /mcp on that call's ledger row", async () => {
    const { secret } = await createApiKey(app.db, {
      tenantId: tenants.acme,
      name: "outside agent",
      createdBy: await app.userId("admin@acme.test"),
      allowedTools: null,
    });
    const client = new Client({ name: "outside-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: "skill_load",
        arguments: { name: "refunds" },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      turn.acmeMcp = result._meta?.[TURN_ID_META] as string;
    } finally {
      await client.close();
    }
    expect(await rowOf(turn.acmeMcp)).toMatchObject({
      source: "mcp",
      status: "success",
      skills: ["refunds"],
      skillVersions: [2],
    });
  });

  it("writes the skills through the API's batched recorder too, in a batch with calls that loaded none", async () => {
    const recorder = new BatchedGovernanceRecorder(async () => app.db, { maxDelayMs: 1, maxTurns: 8 });
    const [withSkills, without] = [uuidv7(), uuidv7()];
    for (const turnId of [withSkills, without])
      await recorder.start({
        turnId,
        tenantId: tenants.globex,
        userId: await app.userId("admin@globex.test"),
        conversationId: null,
        source: "api",
        requestedModel: "team-gpt",
        message: "hi",
        toolsOffered: [],
        startedAt: new Date(Date.now() - 60_000),
      });
    await recorder.end({
      ...callSummary(withSkills, "team-gpt", undefined, "success", 5),
      skills: [
        { name: "pdf", version: 3 },
        { name: "refunds", version: 1 },
      ],
    });
    await recorder.end(callSummary(without, "team-gpt", undefined, "success", 5));
    await recorder.flush();
    expect(await rowOf(withSkills)).toMatchObject({ skills: ["pdf", "refunds"], skillVersions: [3, 1] });
    expect(await rowOf(without)).toMatchObject({ skills: [], skillVersions: [] });
    turn.globexBatched = withSkills;
  });

  it("filters the ledger to the turns that loaded a skill, never another tenant's", async () => {
    await as("member@globex.test", "globex");
    upstream.enqueue(loadCall("refunds"), { kind: "text", text: "ok" });
    turn.globexLoaded = await drawerTurn("refund?");
    expect(await rowOf(turn.globexLoaded)).toMatchObject({ skills: ["refunds"], skillVersions: [1] });

    await as("admin@acme.test", "acme");
    expect(new Set(await ids("agent-turns/rows?f.skill=refunds"))).toEqual(
      new Set([turn.acmeLoaded, turn.acmeFailed, turn.acmeMcp]),
    );
    // Only globex has a turn that loaded "pdf" (the batched one above).
    expect(await ids("agent-turns/rows?f.skill=pdf")).toEqual([]);
    // The Skills column names each skill with its version.
    const { body } = await schemaJson(`agent-turns/rows?f.skill=refunds&f.source=drawer&segment=success`);
    const rows = body.rows as { id: string; skillList: string }[];
    expect(rows.map((r) => r.skillList)).toEqual(["refunds v2"]);

    await as("admin@globex.test", "globex");
    expect(new Set(await ids("agent-turns/rows?f.skill=refunds"))).toEqual(
      new Set([turn.globexLoaded, turn.globexBatched]),
    );
    const suggested = await schemaJson("agent-turns/suggest?field=skill&q=");
    expect((suggested.body.values as { value: string }[]).map((v) => v.value).sort()).toEqual([
      "pdf",
      "refunds",
    ]);
  });

  it("refuses a value that is no skill's name with a 422 naming the filter", async () => {
    await as("admin@acme.test", "acme");
    for (const bad of ["x".repeat(65), "Refunds", "a%20b"]) {
      const { status, body } = await schemaJson(`agent-turns/rows?f.skill=${bad}`);
      expect(status, bad).toBe(422);
      expect(body.error.message).toContain("f.skill");
      expect(body.error.message).toContain("is not a skill name");
    }
  });

  it("shows the skills in the turn's replay, and none on a turn without", async () => {
    const replay = await turnReplay(app.db, { tenantId: tenants.acme, turnId: turn.acmeLoaded });
    expect(replay.turn.skills).toEqual([{ name: "refunds", version: 2 }]);
    expect(replay.turn).not.toHaveProperty("skillVersions");
    const plain = await turnReplay(app.db, { tenantId: tenants.acme, turnId: turn.acmePlain });
    expect(plain.turn.skills).toEqual([]);
  });
});

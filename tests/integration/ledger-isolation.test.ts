// One caller's bad bytes (a NUL, a lone surrogate) or one bad row must never cost anyone else's ledger rows:
// rows are cleaned before they are written, and a batch that fails anyway is written again call by call.
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentMessage, sysAgentTurn, usageDaily } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { createV1Handler } from "@/features/v1/server/handler";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { cleanedValues, governanceFailures } from "@/lib/core/errors/failures";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { ZERO_USAGE } from "@/lib/gateway/types";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { createConversation, DrizzleConversationStore } from "@/lib/governance/conversations";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import type { AgentEvent } from "@/lib/turns/events";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const NUL = "before\u0000after";
const LONE = "high \ud800 alone, low \udfff alone";

describe.each(testDbKinds)("the ledger keeps every good row on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let upstream: FakeProvider;
  let handler: (req: Request) => Promise<Response>;
  let recorder: BatchedGovernanceRecorder;
  let tenants: { acme: string; globex: string };
  let secrets: { acme: string; globex: string };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
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
    const database = async () => db;
    // One batch for the whole burst, so without cleaning the poisoned calls would take everyone's rows down.
    recorder = new BatchedGovernanceRecorder(database, { maxDelayMs: 200 });
    handler = createV1Handler({
      db: database,
      gateway: () => gateway,
      pipeline: new Pipeline({
        db: database,
        gateway: () => gateway,
        counters: () => new PostgresCounters(database),
        cache: () => new PostgresResponseCache(database),
      }),
      recorder,
    });
    tenants = { acme: await app.tenantId("acme"), globex: await app.tenantId("globex") };
    const key = async (slug: "acme" | "globex") =>
      (
        await createApiKey(db, {
          tenantId: tenants[slug],
          name: "isolation test",
          createdBy: await app.userId(`admin@${slug}.test`),
        })
      ).secret;
    secrets = { acme: await key("acme"), globex: await key("globex") };
  });
  afterAll(async () => {
    await upstream.close();
    await app.close();
  });
  beforeEach(async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
  });

  const call = async (secret: string, content: string) => {
    const res = await handler(
      new Request("http://tollgate.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "team-gpt", messages: [{ role: "user", content }] }),
      }),
    );
    await res.text();
    return { status: res.status, id: res.headers.get("x-request-id")! };
  };

  it("writes a NUL byte and a lone surrogate among concurrent calls of two tenants cleaned, and every other row", async () => {
    const cleanedBefore = cleanedValues();
    const failuresBefore = governanceFailures.ledger;
    const plan: { tenant: "acme" | "globex"; content: string }[] = [];
    for (let i = 0; i < 14; i++) plan.push({ tenant: "acme", content: `acme question ${i}` });
    for (let i = 0; i < 14; i++) plan.push({ tenant: "globex", content: `globex question ${i}` });
    plan.splice(7, 0, { tenant: "acme", content: NUL });
    plan.splice(21, 0, { tenant: "globex", content: LONE });
    const answered = await Promise.all(plan.map((p) => call(secrets[p.tenant], p.content)));
    expect(answered.map((a) => a.status)).toEqual(plan.map(() => 200));
    await recorder.flush();

    const ids = answered.map((a) => a.id);
    const rows = await db.select().from(sysAgentTurn).where(inArray(sysAgentTurn.id, ids));
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const [i, p] of plan.entries())
      expect(rows.find((r) => r.id === ids[i])).toMatchObject({
        tenantId: tenants[p.tenant],
        status: "success",
      });

    const requestOf = async (id: string) => {
      const [event] = await db
        .select()
        .from(sysAgentAudit)
        .where(and(eq(sysAgentAudit.turnId, id), eq(sysAgentAudit.type, "request")));
      return (event?.payload as { message?: string } | undefined)?.message;
    };
    expect(await requestOf(ids[7]!)).toBe("user: before\ufffdafter");
    expect(await requestOf(ids[21]!)).toBe("user: high \ufffd alone, low \ufffd alone");
    expect(await requestOf(ids[0]!)).toBe("user: acme question 0");
    expect(await db.$count(sysAgentAudit, inArray(sysAgentAudit.turnId, ids))).toBe(ids.length);

    // The rollups count every call, per tenant.
    const [rollup] = await db
      .select({
        acme: sql<number>`coalesce(sum(${usageDaily.requests}) filter (where ${usageDaily.tenantId} = ${tenants.acme}), 0)::int`,
        globex: sql<number>`coalesce(sum(${usageDaily.requests}) filter (where ${usageDaily.tenantId} = ${tenants.globex}), 0)::int`,
      })
      .from(usageDaily);
    expect(rollup).toEqual({ acme: 15, globex: 15 });
    expect(cleanedValues() - cleanedBefore).toBeGreaterThanOrEqual(2);
    expect(governanceFailures.ledger).toBe(failuresBefore);
  });

  it("keeps the other calls of a batch when one call's row fails for another reason, and counts that one", async () => {
    // A forced constraint violation: a ledger row with this id and start is already there (the primary key is
    // (id, started_at); a batch written twice carries both unchanged).
    const taken = crypto.randomUUID();
    const takenAt = new Date();
    await db.insert(sysAgentTurn).values({
      id: taken,
      tenantId: tenants.acme,
      source: "api",
      requestedModel: "m",
      status: "success",
      startedAt: takenAt,
    });
    const batcher = new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 10_000 });
    const failuresBefore = governanceFailures.ledger;
    const userId = await app.userId("admin@acme.test");
    const ids = [crypto.randomUUID(), crypto.randomUUID(), taken, crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, turnId] of ids.entries()) {
      const tenantId = i % 2 ? tenants.globex : tenants.acme;
      await batcher.start({
        turnId,
        tenantId,
        userId,
        conversationId: null,
        source: "api",
        requestedModel: "team-gpt",
        message: `call ${i}`,
        toolsOffered: [],
        startedAt: turnId === taken ? takenAt : new Date(),
      });
      await batcher.end({
        turnId,
        conversationId: "",
        status: "success",
        requestedModel: "team-gpt",
        servedProvider: "up",
        servedAdapter: "openai",
        servedModel: "gpt-4o-mini",
        fallbackIndex: 0,
        attempts: [],
        usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 2 },
        cost: "0.001",
        rounds: 1,
        toolTrace: [],
        timeToFirstTokenMs: null,
        latencyMs: 5,
      });
    }
    await batcher.flush();
    const good = ids.filter((id) => id !== taken);
    const rows = await db.select().from(sysAgentTurn).where(inArray(sysAgentTurn.id, good));
    expect(rows.map((r) => r.id).sort()).toEqual([...good].sort());
    // Each call's audit and rollup line went with its row, and only with it.
    expect(await db.$count(sysAgentAudit, inArray(sysAgentAudit.turnId, ids))).toBe(good.length);
    const [sums] = await db.select({ n: sql<number>`sum(${usageDaily.requests})::int` }).from(usageDaily);
    expect(sums!.n).toBe(good.length);
    expect(governanceFailures.ledger - failuresBefore).toBe(1);
    expect(batcher.stats()).toMatchObject({ rowsWritten: 4, rowsFailed: 1, rowsWaiting: 0 });
  });

  it("keeps a drawer turn's audit events and messages when the message holds a NUL and a lone surrogate", async () => {
    const member = await app.userId("member@acme.test");
    const conversationId = (await createConversation(db, { tenantId: tenants.acme, userId: member })).id;
    const model = new ScriptedModel([{ text: "Echo: \u0000 and \udc00 back." }]);
    const agent = new AgentService(
      {
        gateway: scriptedGateway(model),
        registry: new ToolRegistry(),
        store: new DrizzleConversationStore(async () => db),
        observer: new GovernanceRecorder(async () => db),
      },
      { maxToolLoops: 2 },
    );
    const before = { ...governanceFailures };
    const events: AgentEvent[] = [];
    for await (const e of agent.send(
      { tenantId: tenants.acme, userId: member, role: "member", conversationId },
      { message: `Look: ${NUL} and ${LONE}`, model: "scripted" },
      new AbortController().signal,
    ))
      events.push(e);
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    expect(done).toMatchObject({ type: "done", summary: { status: "success" } });

    const [turn] = await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, done.summary.turnId));
    expect(turn).toMatchObject({ status: "success", conversationId });
    const audits = await db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, done.summary.turnId));
    expect(audits.map((a) => a.type)).toContain("request");
    expect(JSON.stringify(audits.find((a) => a.type === "request")!.payload)).toContain(
      "before\ufffdafter and high \ufffd alone, low \ufffd alone",
    );
    const messages = await db
      .select()
      .from(sysAgentMessage)
      .where(eq(sysAgentMessage.sessionId, conversationId))
      .orderBy(sysAgentMessage.seq);
    expect(messages.map((m) => [m.role, m.parts.content])).toEqual([
      ["user", "Look: before\ufffdafter and high \ufffd alone, low \ufffd alone"],
      ["assistant", "Echo: \ufffd and \ufffd back."],
    ]);
    expect(governanceFailures).toEqual(before);
  });
});

// The audit trail is tamper-evident: every event is hashed with its predecessor's hash in its tenant-month chain,
// concurrent writers (two recorders, as two replicas) append without forking it, and verification names the event
// an edit or a deletion broke. Runs on PGlite, and on PostgreSQL with two connection pools when one is configured.
import { randomUUID } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentAuditChain, sysAgentTurn, tenant, usageDaily } from "@/db/schema";
import { chainAudit, chainMonth, executeTogether, genesisHash } from "@/lib/governance/audit-chain";
import { verifyAuditChains, verifyTurnChain } from "@/lib/governance/audit-verify";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { applyRetention } from "@/lib/governance/retention";
import type { TurnSummary } from "@/lib/turns/events";
import type { TurnObserver, TurnStart } from "@/lib/turns/observer";
import { useSeededAppDatabase } from "../helpers/app-db";
import { runCli } from "../helpers/cli";
import { testDbKinds } from "../helpers/db";

const cliAt = (databaseUrl: string, ...args: string[]) =>
  runCli("audit-verify", args, { DATABASE_URL: databaseUrl });
const DAY_MS = 86_400_000;

describe.each(testDbKinds)("the audit chain on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  /** A second process's database: its own pool on PostgreSQL; the same handle on PGlite (one connection). */
  let other: Database;
  let acme: string;
  let globex: string;
  let user: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    other = await app.secondPool();
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    user = await app.userId("admin@acme.test");
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentAuditChain);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
  });

  const startOf = (tenantId: string, source: "api" | "drawer"): TurnStart => ({
    turnId: randomUUID(),
    tenantId,
    userId: user,
    requestedModel: "default",
    message: `hello ${Math.random()}`,
    toolsOffered: [],
    startedAt: new Date(),
    ...(source === "api" ? { source, conversationId: null } : { source, conversationId: randomUUID() }),
  });
  const summaryOf = (start: TurnStart) =>
    ({
      turnId: start.turnId,
      conversationId: start.conversationId,
      status: "success",
      requestedModel: start.requestedModel,
      servedProvider: "offline",
      servedAdapter: "offline",
      servedModel: "m",
      fallbackIndex: 0,
      attempts: [],
      usage: {
        inputTokens: 1,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 1,
        reasoningTokens: 0,
      },
      cost: "0.001",
      rounds: 1,
      toolTrace: [],
      timeToFirstTokenMs: null,
      latencyMs: 5,
    }) as TurnSummary;

  /** One turn through a recorder: a request, a tool call and its result, an answer. */
  async function turn(recorder: TurnObserver, tenantId: string, source: "api" | "drawer"): Promise<string> {
    const start = startOf(tenantId, source);
    await recorder.start(start);
    const call = {
      id: `c-${randomUUID()}`,
      name: "lookup",
      args: { q: "x", n: 1.5, nested: { b: 1, a: [1, "z"] } },
    };
    recorder.event(start.turnId, { type: "tool_call", call, round: 1 });
    recorder.event(start.turnId, {
      type: "tool_result",
      callId: call.id,
      name: "lookup",
      ok: true,
      result: "found \u0000 it",
      durationMs: 3,
    });
    recorder.event(start.turnId, { type: "answer", text: "done", status: "success" });
    await recorder.end(summaryOf(start));
    return start.turnId;
  }

  /** Two replicas' batch writers and a per-turn recorder writing the same two tenants at once. */
  async function writeConcurrently(perWriter = 12): Promise<string[]> {
    const a = new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 1, maxTurns: 3, writers: 2 });
    const b = new BatchedGovernanceRecorder(async () => other, { maxDelayMs: 1, maxTurns: 4, writers: 2 });
    const chat = new GovernanceRecorder(async () => other);
    const turns = await Promise.all([
      ...Array.from({ length: perWriter }, (_, i) => turn(a, i % 3 ? acme : globex, "api")),
      ...Array.from({ length: perWriter }, (_, i) => turn(b, i % 2 ? acme : globex, "api")),
      ...Array.from({ length: 4 }, (_, i) => turn(chat, i % 2 ? acme : globex, "drawer")),
    ]);
    await Promise.all([a.flush(), b.flush()]);
    return turns;
  }

  const chainOf = (tenantId: string) =>
    db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.tenantId, tenantId))
      .orderBy(asc(sysAgentAudit.createdAt), asc(sysAgentAudit.chainSeq));

  it("keeps one intact chain per tenant-month across batches, two concurrent batch writers and a per-turn recorder", async () => {
    const turns = await writeConcurrently();
    const month = chainMonth(new Date());
    const reports = await verifyAuditChains(db);
    const total = (await db.select({ n: sql<number>`count(*)::int` }).from(sysAgentAudit))[0]!.n;
    expect(total).toBe(turns.length * 4);
    expect(reports.map((r) => [r.tenantId, r.month, r.breaks])).toEqual(
      [acme, globex].sort().map((t) => [t, month, []]),
    );
    expect(reports.reduce((n, r) => n + r.checked, 0)).toBe(total);
    for (const tenantId of [acme, globex]) {
      const events = await chainOf(tenantId);
      // Places 1..n with no gap or duplicate; each event's link is its predecessor's hash, the first the genesis.
      expect(events.map((e) => e.chainSeq)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]!.prevHash).toBe(genesisHash(tenantId, month));
      for (let i = 1; i < events.length; i++) expect(events[i]!.prevHash).toBe(events[i - 1]!.hash);
      const [head] = await db
        .select()
        .from(sysAgentAuditChain)
        .where(eq(sysAgentAuditChain.tenantId, tenantId));
      expect(head).toMatchObject({ seq: events.length, hash: events.at(-1)!.hash });
    }
    // Every turn's badge: its four events hash (the tool result's NUL was cleaned before hashing) and link up.
    for (const turnId of turns.slice(0, 6)) {
      const [row] = await db
        .select({ tenantId: sysAgentTurn.tenantId })
        .from(sysAgentTurn)
        .where(eq(sysAgentTurn.id, turnId));
      expect(await verifyTurnChain(db, { tenantId: row!.tenantId, turnId })).toEqual({
        state: "intact",
        checked: 4,
      });
    }
  }, 60_000);

  it("writes a batch whose transaction failed again with fresh places and hashes: no gap, no duplicate", async () => {
    let failures = 1;
    const flaky = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== "transaction") return Reflect.get(target, prop, receiver);
        return (fn: (tx: Database) => Promise<unknown>) =>
          target.transaction(async (tx) => {
            await fn(tx as unknown as Database);
            // After the heads moved and the rows went in: the commit is lost, as when a connection drops.
            if (failures-- > 0) throw Object.assign(new Error("connection lost"), { code: "08006" });
          });
      },
    });
    const recorder = new BatchedGovernanceRecorder(async () => flaky, { maxDelayMs: 1, maxTurns: 10 });
    await Promise.all(Array.from({ length: 5 }, () => turn(recorder, acme, "api")));
    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ rowsWritten: 5, rowsFailed: 0 });
    const events = await chainOf(acme);
    expect(events.map((e) => e.chainSeq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await verifyAuditChains(db)).map((r) => r.breaks)).toEqual([[]]);
  }, 30_000);

  it("names an event whose stored payload was edited (content) and the event after a deleted one (prev)", async () => {
    await writeConcurrently(6);
    const events = await chainOf(acme);
    const edited = events[3]!;
    await db.execute(
      sql`update sys_agent_audit set payload = jsonb_set(payload, '{edited}', 'true') where id = ${edited.id}`,
    );
    const removed = events[7]!;
    const follower = events[8]!;
    await db.delete(sysAgentAudit).where(eq(sysAgentAudit.id, removed.id));

    const [report] = await verifyAuditChains(db, { tenantId: acme });
    expect(report!.breaks).toEqual([
      {
        reason: "content",
        eventId: edited.id,
        createdAt: edited.createdAt.toISOString(),
        turnId: edited.turnId,
        seq: edited.seq,
        chainSeq: 4,
      },
      expect.objectContaining({ reason: "prev", eventId: follower.id, chainSeq: 9 }),
    ]);
    expect((await verifyAuditChains(db, { tenantId: globex }))[0]!.breaks).toEqual([]);
    expect(await verifyTurnChain(db, { tenantId: acme, turnId: edited.turnId })).toMatchObject({
      state: "broken",
      reason: "content",
      eventId: edited.id,
    });
    expect(await verifyTurnChain(db, { tenantId: acme, turnId: follower.turnId })).toMatchObject({
      state: "broken",
      reason: "prev",
      eventId: follower.id,
    });
    // A turn's events nobody touched, away from both, are intact on the replay's badge.
    expect(await verifyTurnChain(db, { tenantId: acme, turnId: events.at(-1)!.turnId })).toMatchObject({
      state: "intact",
    });
    // The command says the same from another process (on PostgreSQL: PGlite here lives in this process only).
    if (app.url) {
      const out = await cliAt(app.url, "--tenant", "acme");
      expect(out.code).toBe(1);
      expect(out.stdout).toContain(
        `broken at event ${edited.id} (created ${edited.createdAt.toISOString()}, turn ${edited.turnId}`,
      );
      expect(out.stdout).toContain("content hash mismatch");
      expect(out.stdout).toContain(`broken at event ${follower.id}`);
      expect(out.stdout).toContain("prev mismatch");
      const heads = await cliAt(app.url, "--tenant", "globex", "--heads");
      const [last] = await chainOf(globex).then((e) => e.slice(-1));
      expect(heads).toMatchObject({
        code: 0,
        stdout: `${globex}\t${chainMonth(new Date())}\t${last!.chainSeq}\t${last!.hash}\n`,
      });
    }
  }, 60_000);

  it("calls a chain whose last events were deleted broken at its end", async () => {
    await writeConcurrently(3);
    const events = await chainOf(globex);
    await db.delete(sysAgentAudit).where(eq(sysAgentAudit.id, events.at(-1)!.id));
    const [report] = await verifyAuditChains(db, { tenantId: globex });
    expect(report!.breaks).toEqual([expect.objectContaining({ reason: "head", eventId: null })]);
  }, 30_000);

  it("reports events written before hashing as unchained, not broken, beside a chain that starts after them", async () => {
    const old = startOf(acme, "api");
    await db.insert(sysAgentTurn).values({
      id: old.turnId,
      tenantId: acme,
      source: "api",
      requestedModel: "default",
      status: "success",
      startedAt: new Date(Date.now() - 1000),
    });
    await db.insert(sysAgentAudit).values(
      [1, 2].map((seq) => ({
        tenantId: acme,
        turnId: old.turnId,
        seq,
        type: "request" as const,
        payload: { seq },
      })),
    );
    const recorder = new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 1 });
    await turn(recorder, acme, "api");
    await recorder.flush();
    const [report] = await verifyAuditChains(db, { tenantId: acme });
    expect(report).toMatchObject({ checked: 4, unchained: 2, breaks: [] });
    expect(await verifyTurnChain(db, { tenantId: acme, turnId: old.turnId })).toEqual({ state: "unchained" });
  }, 30_000);

  it("still verifies the kept part of a chain after retention deleted its first days", async () => {
    await db.update(tenant).set({ retentionDays: 5 }).where(eq(tenant.id, acme));
    // Events of one month, ten and two days before "now" (a 15th, so both stay in its month).
    const now = new Date(`${chainMonth(new Date())}-15T12:00:00Z`);
    const write = async (at: Date, n: number) => {
      const turnId = randomUUID();
      const rows = Array.from({ length: n }, (_, i) => ({
        tenantId: acme,
        turnId,
        seq: i + 1,
        type: "request" as const,
        payload: { i },
      }));
      await db.transaction(async (tx) => executeTogether(tx, await chainAudit(tx, rows, at)));
    };
    await write(new Date(now.getTime() - 10 * DAY_MS), 3);
    await write(new Date(now.getTime() - 2 * DAY_MS), 2);
    const result = await applyRetention(db, { now, batchSize: 2 });
    expect(result.auditEvents).toBe(3);
    const [report] = await verifyAuditChains(db, { tenantId: acme });
    expect(report).toMatchObject({ checked: 2, breaks: [] });
    const [head] = await db.select().from(sysAgentAuditChain).where(eq(sysAgentAuditChain.tenantId, acme));
    expect(head).toMatchObject({ seq: 5, startSeq: 3 });
    await db.update(tenant).set({ retentionDays: 90 }).where(eq(tenant.id, acme));
  }, 30_000);
});

describe("npm run audit:verify", () => {
  const cli = (...args: string[]) => cliAt("", ...args);

  it("refuses an unknown option, a bad day, a reversed range and an unknown tenant with exit 2; passes an empty trail", async () => {
    const [unknown, badDay, reversed, noTenant, empty] = await Promise.all([
      cli("--bogus"),
      cli("--from", "2026-02-30"),
      cli("--from", "2026-11-30", "--to", "2026-11-01"),
      cli("--tenant", "no-such-tenant"),
      cli("--heads"),
    ]);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Unknown option '--bogus'\nusage: /),
    });
    expect(badDay).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^--from must be a real day like 2026-11-01 \(got "2026-02-30"\)\n/),
    });
    expect(reversed).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^--from 2026-11-30 is after --to/),
    });
    expect(noTenant).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^no tenant with slug "no-such-tenant"/),
    });
    expect(empty).toMatchObject({ code: 0, stdout: "" });
  }, 60_000);
});

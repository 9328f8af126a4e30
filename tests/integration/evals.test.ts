import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { evalRun, evalRunItem, membership, score, sysAgentTurn } from "@/db/schema";
import { EvalRunner } from "@/features/evals/server/runner";
import { createRun, getRun } from "@/features/evals/server/runs";
import { createApiKey } from "@/features/keys/server/keys";
import { saveLimits } from "@/features/limits/server/settings";
import { parseGatewayConfig } from "@/lib/gateway/config";
import type { TurnObserver } from "@/lib/turns/observer";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { postgresAdminUrl, testDbKinds, withDatabase } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const datasets = await import("@/app/api/evals/datasets/route");
const oneDataset = await import("@/app/api/evals/datasets/[id]/route");
const items = await import("@/app/api/evals/datasets/[id]/items/route");
const prompts = await import("@/app/api/prompts/route");
const fromTurn = await import("@/app/api/evals/datasets/[id]/from-turn/route");
const runs = await import("@/app/api/evals/runs/route");
const oneRun = await import("@/app/api/evals/runs/[id]/route");
const cancel = await import("@/app/api/evals/runs/[id]/cancel/route");
const exportCsv = await import("@/app/api/evals/runs/[id]/export/route");

const json = (method: string, body?: unknown) =>
  new Request("http://app/api/x", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const noParams = { params: Promise.resolve({}) };
const withId = (id: string) => ({ params: Promise.resolve({ id }) });

const NO_LIMITS = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};

// The fake upstream answers "The capital of France is Paris." to everything; the offline model echoes the
// question. So: the upstream passes the Paris cases, the offline model the ones whose answer is in the question.
const CASES = [
  { input: { messages: [{ role: "user", content: "What is the capital of France?" }] }, expected: "Paris" },
  { input: { messages: [{ role: "user", content: "Say the word banana" }] }, expected: "banana" },
  { input: { messages: [{ role: "user", content: "Spell kiwi" }] }, expected: "kiwi" },
  { input: { messages: [{ role: "user", content: "Is the Louvre in Paris?" }] }, expected: "Paris" },
];

describe.each(testDbKinds)("evaluation runs on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let judgeUpstream: FakeProvider;
  let db: Database;
  let acme: string;
  let admin: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    upstream = await startFakeOpenAI();
    judgeUpstream = await startFakeOpenAI();
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
    await app.rebuild({
      gateway: parseGatewayConfig(
        {
          providers: {
            up: { type: "openai", baseUrl: upstream.url },
            judge: { type: "openai", baseUrl: judgeUpstream.url },
            offline: { type: "offline", chunkDelayMs: 0 },
          },
          models: {
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
            "team-judge": { candidates: [{ provider: "judge", model: "gpt-4o-mini" }] },
            "offline-demo": { candidates: [{ provider: "offline", model: "offline-demo" }] },
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
    await judgeUpstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.setDefault({
      kind: "text",
      text: "The capital of France is Paris.",
      usage: { input: 100, output: 20 },
    });
    judgeUpstream.reset();
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  /** A runner of a "process" of its own over this database. */
  const runner = (
    options: { owner?: string; database?: Database; slots?: number; recorder?: TurnObserver } = {},
  ) =>
    new EvalRunner({
      db: async () => options.database ?? db,
      calls: { pipeline: app.container.pipeline, recorder: options.recorder ?? app.container.recorder },
      owner: options.owner,
      slots: options.slots,
      pollMs: 20,
      toolSchemas: (names) => app.container.tools.registry.schemasOf(names),
    });
  const evalTurns = async (turnIds?: string[]) => {
    const rows = await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.source, "eval"));
    return turnIds ? rows.filter((r) => turnIds.includes(r.id)) : rows;
  };
  const newDataset = async (name: string, cases: unknown[] = CASES, extra: Record<string, unknown> = {}) => {
    await as("admin@acme.test");
    const res = await datasets.POST(json("POST", { name, items: cases, ...extra }), noParams);
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  };
  const itemRows = (runId: string) => db.select().from(evalRunItem).where(eq(evalRunItem.runId, runId));

  it("runs a dataset against two targets: the right pass rates, one eval ledger row per call", async () => {
    const datasetId = await newDataset("capitals");
    const before = (await evalTurns()).length;
    const started = await runs.POST(
      json("POST", { datasetId, targets: [{ model: "team-gpt" }, { model: "offline-demo" }] }),
      noParams,
    );
    expect(started.status).toBe(201);
    const { id, total } = await started.json();
    expect(total).toBe(8);
    // The container's runner took it up at once; finish it here without timers.
    await app.container.evals.drain();
    const res = await oneRun.GET(new Request("http://app/x"), withId(id));
    const view = await res.json();
    expect(view.status).toBe("done");
    expect(view.scorers).toEqual([{ type: "contains" }]);
    expect(view.progress).toMatchObject({ done: 8, total: 8, passed: 5 });
    const [gpt, offline] = view.targets;
    expect(gpt).toMatchObject({
      model: "team-gpt",
      done: 4,
      passed: 2,
      passRate: 0.5,
      meanScore: 0.5,
      failures: 0,
    });
    expect(offline).toMatchObject({ model: "offline-demo", passRate: 0.75, cost: "0", costPerPass: "0" });
    // gpt-4o-mini at the catalog's price: 100 in, 20 out per call, exact.
    expect(Number(gpt.cost)).toBeGreaterThan(0);
    expect(gpt.costPerPass).toBe(String(Number(gpt.cost) / 2));
    expect(gpt.p50LatencyMs).not.toBeNull();
    expect(view.items).toHaveLength(8);
    const turnIds = view.items.map((i: { turnId: string }) => i.turnId);
    expect(new Set(turnIds).size).toBe(8);
    const ledger = await evalTurns(turnIds);
    expect(ledger).toHaveLength(8);
    expect(ledger.every((t) => t.source === "eval" && t.userId === admin && t.status === "success")).toBe(
      true,
    );
    expect((await evalTurns()).length - before).toBe(8);
    expect(upstream.requests).toHaveLength(4);
    const failing = view.items.find(
      (i: { targetIndex: number; passed: boolean }) => i.targetIndex === 0 && !i.passed,
    );
    expect(failing.scores[0]).toMatchObject({ type: "contains", passed: false });
    // Each item's score is also the tenant's score of its call (source eval, the run's), as people's feedback is.
    const written = await app.db.select().from(score).where(eq(score.evalRunId, id));
    expect(written).toHaveLength(8);
    expect(
      written.every((s) => s.source === "eval" && s.name === "eval:contains" && s.type === "numeric"),
    ).toBe(true);
    const byTurn = new Map(written.map((s) => [s.turnId, s.value]));
    for (const item of view.items as { turnId: string; score: number }[])
      expect(byTurn.get(item.turnId)).toBe(item.score);
    // The CSV has every item and target with exact costs.
    const csv = await (await exportCsv.GET(new Request("http://app/x"), withId(id))).text();
    const lines = csv.trim().split("\n");
    expect(lines[0]).toMatch(/^item_id,target,model,prompt,status,passed,score,latency_ms,cost_usd,output/);
    expect(lines).toHaveLength(9);
    expect(lines.filter((l) => l.includes(",team-gpt,")).every((l) => l.includes(",0.0000"))).toBe(true);
  });

  it("an LLM judge scores with a scripted fake; its calls are eval ledger rows too and its cost counts", async () => {
    const datasetId = await newDataset("judged", CASES.slice(0, 2), {
      scorers: [
        { type: "llm_judge", rubric: "Answers the question asked.", model: "team-judge", threshold: 0.7 },
      ],
    });
    judgeUpstream.enqueue(
      {
        kind: "text",
        text: '{"score": 0.9, "reasoning": "correct capital"}',
        usage: { input: 300, output: 10 },
      },
      {
        kind: "text",
        text: 'Verdict: ```json\n{"score": 0.2, "reasoning": "off topic"}\n```',
        usage: { input: 300, output: 10 },
      },
    );
    const { id } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "team-gpt" }], concurrency: 1 },
      { userId: admin, apiKeyId: null },
      app.container.gateway,
    );
    await runner().drain();
    const view = await getRun(db, acme, id);
    expect(view.scorers).toEqual([
      { type: "llm_judge", rubric: "Answers the question asked.", model: "team-judge", threshold: 0.7 },
    ]);
    expect(view.targets[0]).toMatchObject({ passed: 1, passRate: 0.5 });
    const [first, second] = view.items;
    expect(first!.scores![0]).toMatchObject({
      passed: true,
      score: 0.9,
      reason: "0.9 (threshold 0.7): correct capital",
    });
    expect(second!.scores![0]).toMatchObject({ passed: false, score: 0.2 });
    expect(judgeUpstream.requests).toHaveLength(2);
    expect(JSON.stringify(judgeUpstream.requests[0]!.body)).toContain("Answers the question asked.");
    // Two answers and two verdicts: four eval rows, the judge's cost inside the target's.
    const rows = await db
      .select()
      .from(sysAgentTurn)
      .where(and(eq(sysAgentTurn.source, "eval"), eq(sysAgentTurn.requestedModel, "team-judge")));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.status === "success" && r.userId === admin)).toBe(true);
    const rowItems = await itemRows(id);
    expect(rowItems.every((r) => r.judgeCost !== null && Number(r.judgeCost) > 0)).toBe(true);
    expect(Number(view.targets[0]!.cost)).toBeCloseTo(
      rowItems.reduce((n, r) => n + Number(r.cost) + Number(r.judgeCost), 0),
      12,
    );
  });

  it("resumes after a restart: expired leases are claimed again, finished items never repeated", async () => {
    const cases = Array.from({ length: 6 }, (_, i) => ({
      input: { messages: [{ role: "user" as const, content: `Case ${i} about Paris` }] },
      expected: "Paris",
    }));
    const datasetId = await newDataset("restart", cases);
    const { id, total } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "team-gpt" }, { model: "offline-demo" }], concurrency: 3 },
      { userId: admin, apiKeyId: null },
      app.container.gateway,
    );
    expect(total).toBe(12);
    // The first process finishes three items…
    const first = runner({ slots: 3 });
    expect(await first.tick()).toBe(3);
    // Stopped at once: the three it claimed finish, nothing more is claimed.
    first.stop();
    await first.idle();
    const finished = (await itemRows(id)).filter((r) => r.status === "done");
    expect(finished).toHaveLength(3);
    // …and dies holding two more (claimed, never answered): their leases expire.
    const dead = "00000000-0000-4000-8000-00000000dead";
    const pending = (await itemRows(id)).filter((r) => r.status === "pending").slice(0, 2);
    await db
      .update(evalRunItem)
      .set({ status: "running", claimedBy: dead, leaseUntil: sql`now() - interval '1 second'`, attempts: 1 })
      .where(
        sql`${evalRunItem.id} in (${sql.join(
          pending.map((p) => sql`${p.id}`),
          sql`, `,
        )})`,
      );
    // The next process finishes the run.
    await runner().drain();
    const rows = await itemRows(id);
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.status === "done")).toBe(true);
    for (const done of finished)
      expect(rows.find((r) => r.id === done.id)).toMatchObject({ turnId: done.turnId, attempts: 1 });
    for (const crashed of pending) expect(rows.find((r) => r.id === crashed.id)!.attempts).toBe(2);
    // One ledger row per call: 12, not one more.
    expect(await evalTurns(rows.map((r) => r.turnId!))).toHaveLength(12);
    expect(new Set(rows.map((r) => r.turnId)).size).toBe(12);
    expect((await getRun(db, acme, id, { items: false })).status).toBe("done");
  });

  it("gives up an item whose process died as often as it may be tried, and still closes the run", async () => {
    const datasetId = await newDataset("given up", CASES.slice(0, 2));
    const { id } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "team-gpt" }], concurrency: 2 },
      { userId: admin, apiKeyId: null },
      app.container.gateway,
    );
    const [doomed] = await itemRows(id);
    await db
      .update(evalRunItem)
      .set({
        status: "running",
        claimedBy: "00000000-0000-4000-8000-00000000dead",
        leaseUntil: sql`now() - interval '1 second'`,
        attempts: 3,
      })
      .where(eq(evalRunItem.id, doomed!.id));
    await runner().drain();
    const rows = await itemRows(id);
    expect(rows.find((r) => r.id === doomed!.id)).toMatchObject({ status: "failed", attempts: 3 });
    expect(rows.find((r) => r.id === doomed!.id)!.error).toContain("given up");
    expect(rows.find((r) => r.id !== doomed!.id)).toMatchObject({ status: "done", attempts: 1 });
    expect((await getRun(db, acme, id, { items: false })).status).toBe("done");
  });

  it("two processes share a run without doubling an item, within the run's concurrency", async () => {
    let second: DatabaseHandle | undefined;
    let otherDb = db;
    if (kind === "postgres") {
      const [row] = (await db.execute(sql`select current_database() as name`)) as unknown as {
        name: string;
      }[];
      second = await openDatabase({ kind: "postgres", url: withDatabase(postgresAdminUrl, row!.name) });
      otherDb = second.db;
    }
    try {
      upstream.setDefault({ kind: "text", text: "Paris", usage: { input: 10, output: 2 }, delayMs: 15 });
      const cases = Array.from({ length: 10 }, (_, i) => ({
        input: { messages: [{ role: "user" as const, content: `Question ${i}` }] },
        expected: "Paris",
      }));
      const datasetId = await newDataset("shared", cases);
      const { id } = await createRun(
        db,
        acme,
        { datasetId, targets: [{ model: "team-gpt" }, { model: "offline-demo" }], concurrency: 3 },
        { userId: admin, apiKeyId: null },
        app.container.gateway,
      );
      // Counts the calls in flight over both processes.
      let inflight = 0;
      let most = 0;
      const base = app.container.recorder;
      const counting: TurnObserver = {
        start: async (turn) => {
          most = Math.max(most, ++inflight);
          return base.start(turn);
        },
        event: (turnId, event) => base.event(turnId, event),
        end: async (summary) => {
          inflight--;
          return base.end(summary);
        },
      };
      const a = runner({ recorder: counting });
      const b = runner({ database: otherDb, recorder: counting });
      await Promise.all([a.drain(), b.drain()]);
      const rows = await itemRows(id);
      expect(rows).toHaveLength(20);
      expect(rows.every((r) => r.status === "done" && r.attempts === 1)).toBe(true);
      expect(new Set(rows.map((r) => r.turnId)).size).toBe(20);
      expect(await evalTurns(rows.map((r) => r.turnId!))).toHaveLength(20);
      expect(upstream.requests).toHaveLength(10);
      expect(most).toBeLessThanOrEqual(3);
      expect((await getRun(db, acme, id, { items: false })).targets[0]!.passRate).toBe(1);
    } finally {
      await second?.close();
    }
  });

  it("cancel stops the run: nothing more is claimed, finished items kept, the rest cancelled", async () => {
    const cases = Array.from({ length: 5 }, (_, i) => ({
      input: { messages: [{ role: "user" as const, content: `Item ${i}` }] },
      expected: "Paris",
    }));
    const datasetId = await newDataset("to-cancel", cases);
    const { id } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "team-gpt" }], concurrency: 2 },
      { userId: admin, apiKeyId: null },
      app.container.gateway,
    );
    const r = runner({ slots: 2 });
    expect(await r.tick()).toBe(2);
    r.stop();
    await r.idle();
    await as("admin@acme.test");
    const res = await cancel.POST(json("POST"), withId(id));
    expect(await res.json()).toEqual({ cancelled: true, status: "cancelled" });
    // A runner finds nothing to do; the finished items are kept.
    const next = runner();
    expect(await next.tick()).toBe(0);
    const rows = await itemRows(id);
    expect(rows.filter((x) => x.status === "done")).toHaveLength(2);
    expect(rows.filter((x) => x.status === "cancelled")).toHaveLength(3);
    const view = await getRun(db, acme, id);
    expect(view).toMatchObject({ status: "cancelled", progress: { done: 2, total: 5 } });
    expect(upstream.requests).toHaveLength(2);
    // Cancelling again answers that it had already ended.
    expect(await (await cancel.POST(json("POST"), withId(id))).json()).toEqual({
      cancelled: false,
      status: "cancelled",
    });
  });

  it("a hard budget stops the run with status budget, keeping the items it finished", async () => {
    // Each answer bills 100k input tokens (about $0.015 at gpt-4o-mini's price); the key may spend $0.04 a day.
    upstream.setDefault({ kind: "text", text: "Paris", usage: { input: 100_000, output: 10 } });
    const { key } = await createApiKey(db, { tenantId: acme, name: "ci evals", createdBy: admin });
    await saveLimits(
      db,
      app.container.stores.counters,
      acme,
      { scope: "key", subjectId: key.id, ...NO_LIMITS, dailyHardUsd: "0.04" },
      admin,
    );
    const cases = Array.from({ length: 6 }, (_, i) => ({
      input: { messages: [{ role: "user" as const, content: `Budget case ${i}` }] },
      expected: "Paris",
    }));
    const datasetId = await newDataset("budget", cases);
    const { id } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "team-gpt" }], concurrency: 1 },
      { userId: admin, apiKeyId: key.id },
      app.container.gateway,
    );
    await runner().drain();
    const view = await getRun(db, acme, id);
    expect(view.status).toBe("budget");
    expect(view.error).toBeTruthy();
    const done = view.items.filter((i) => i.status === "done");
    const skipped = view.items.filter((i) => i.status === "skipped");
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(6);
    expect(done.length + skipped.length).toBe(6);
    expect(done.every((i) => i.passed === true && i.output === "Paris")).toBe(true);
    // The refused call is on the ledger too (source eval, the key's), and nothing ran after it.
    const ledger = await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
    expect(ledger.every((t) => t.source === "eval")).toBe(true);
    expect(ledger.filter((t) => t.errorClass === "budget_exceeded")).toHaveLength(1);
    expect(upstream.requests).toHaveLength(done.length);
  });

  it("imports JSONL all or nothing, naming each bad line", async () => {
    const datasetId = await newDataset("jsonl", []);
    const good = JSON.stringify({
      input: { messages: [{ role: "user", content: "hi" }] },
      expected: "hello",
    });
    const jsonl = [
      good,
      "",
      '{"input": {"messages": []}}',
      "not json",
      JSON.stringify({ input: { variables: { city: "Paris" } }, extra: 1 }),
    ].join("\n");
    const res = await items.POST(json("POST", { jsonl }), withId(datasetId));
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(Object.keys(body.error.fields)).toEqual(["line 3", "line 4", "line 5"]);
    expect(body.error.fields["line 3"][0]).toMatch(/^input/);
    expect(body.error.fields["line 4"][0]).toMatch(/^not JSON/);
    expect(body.error.message).toMatch(/^3 lines could not be read, nothing was added: line 3: input/);
    const detail = await (await oneDataset.GET(new Request("http://app/x"), withId(datasetId))).json();
    expect(detail.dataset.items).toEqual([]);
    const ok = await items.POST(json("POST", { jsonl: `${good}\n${good}\n` }), withId(datasetId));
    expect(ok.status).toBe(201);
    expect((await ok.json()).added).toBe(2);
    const viaItems = await items.POST(
      json("POST", { items: [{ input: { variables: { city: "Rome" } } }] }),
      withId(datasetId),
    );
    expect(viaItems.status).toBe(201);
    const after = await (await oneDataset.GET(new Request("http://app/x"), withId(datasetId))).json();
    expect(after.dataset.items).toHaveLength(3);
    // Variables need a target with a prompt.
    const refused = await runs.POST(json("POST", { datasetId, targets: [{ model: "team-gpt" }] }), noParams);
    expect(refused.status).toBe(422);
    expect(Object.keys((await refused.json()).error.fields)).toEqual(["targets.0.prompt"]);
  });

  it("makes an item from a ledger turn: an API call's request and answer", async () => {
    const datasetId = await newDataset("from-ledger", []);
    // An earlier evaluation call is a ledger turn with a request and an answer event.
    const [turn] = await db
      .select()
      .from(sysAgentTurn)
      .where(
        and(
          eq(sysAgentTurn.tenantId, acme),
          eq(sysAgentTurn.source, "eval"),
          eq(sysAgentTurn.requestedModel, "team-gpt"),
          eq(sysAgentTurn.status, "success"),
        ),
      )
      .limit(1);
    const res = await fromTurn.POST(json("POST", { turnId: turn!.id }), withId(datasetId));
    expect(res.status).toBe(201);
    const item = await res.json();
    expect(item.input.messages[0].role).toBe("user");
    expect(typeof item.expected).toBe("string");
    // Another tenant's turn is not found; a turn id that is no turn is not found.
    await as("admin@globex.test", "globex");
    const globexSet = (
      await (await datasets.POST(json("POST", { name: "mine", items: [] }), noParams)).json()
    ).id;
    expect((await fromTurn.POST(json("POST", { turnId: turn!.id }), withId(globexSet))).status).toBe(404);
  });

  it("is for tenant admins and prompt editors; another tenant's dataset and run are 404; bad input is named", async () => {
    const datasetId = await newDataset("access", CASES.slice(0, 1));
    const { id } = await createRun(
      db,
      acme,
      { datasetId, targets: [{ model: "offline-demo" }], concurrency: 1 },
      { userId: admin, apiKeyId: null },
      app.container.gateway,
    );
    await runner().drain();
    await as("member@acme.test");
    expect((await datasets.GET(new Request("http://app/x"), noParams)).status).toBe(403);
    expect((await oneRun.GET(new Request("http://app/x"), withId(id))).status).toBe(403);
    const member = await app.userId("member@acme.test");
    await db
      .update(membership)
      .set({ promptEditor: true })
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
    expect((await oneRun.GET(new Request("http://app/x"), withId(id))).status).toBe(200);
    await db
      .update(membership)
      .set({ promptEditor: false })
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
    await as("admin@globex.test", "globex");
    expect((await oneRun.GET(new Request("http://app/x"), withId(id))).status).toBe(404);
    expect((await oneDataset.GET(new Request("http://app/x"), withId(datasetId))).status).toBe(404);
    expect((await cancel.POST(json("POST"), withId(id))).status).toBe(404);
    expect((await exportCsv.GET(new Request("http://app/x"), withId(id))).status).toBe(404);
    expect(
      (await runs.POST(json("POST", { datasetId, targets: [{ model: "team-gpt" }] }), noParams)).status,
    ).toBe(404);
    await as("admin@acme.test");
    expect((await oneRun.GET(new Request("http://app/x"), withId("nope"))).status).toBe(404);
    const dup = await datasets.POST(json("POST", { name: "access", items: [] }), noParams);
    expect(dup.status).toBe(409);
    const bad = await runs.POST(
      json("POST", {
        datasetId,
        targets: [
          { model: "no-such-model" },
          { model: "team-gpt", prompt: { name: "missing", label: "production" } },
        ],
        scorers: [{ type: "regex", pattern: "(" }],
      }),
      noParams,
    );
    expect(bad.status).toBe(422);
    expect(Object.keys((await bad.json()).error.fields).sort()).toEqual([
      "scorers.0",
      "targets.0.model",
      "targets.1.prompt",
    ]);
    const noTargets = await runs.POST(json("POST", { datasetId, targets: [] }), noParams);
    expect((await noTargets.json()).error.fields.targets).toEqual(["at least one target"]);
    const list = await (await runs.GET(new Request("http://app/x"), noParams)).json();
    expect(list.runs.some((r: { id: string }) => r.id === id)).toBe(true);
    const [stored] = await db.select().from(evalRun).where(eq(evalRun.id, id));
    expect(stored!.status).toBe("done");
  });

  it("offers a prompt target its tool sets, so tool_called scores the tool the model chose", async () => {
    await as("admin@acme.test");
    const saved = await prompts.POST(
      json("POST", {
        name: "eval/clock",
        type: "chat",
        messages: [{ role: "user", content: "{{question}}" }],
        config: { toolSets: ["time"] },
        labels: ["production"],
      }),
      noParams,
    );
    expect(saved.status).toBe(201);
    const datasetId = await newDataset("clock", [
      { input: { variables: { question: "What time is it in Tokyo?" } }, expected: "Asia/Tokyo" },
    ]);
    upstream.setDefault({
      kind: "tool_calls",
      calls: [{ name: "current_time", args: { timezone: "Asia/Tokyo" } }],
      usage: { input: 50, output: 10 },
    });
    const res = await runs.POST(
      json("POST", {
        datasetId,
        targets: [{ model: "team-gpt", prompt: { name: "eval/clock" } }],
        scorers: [{ type: "tool_called", name: "current_time", args: { timezone: "Asia/Tokyo" } }],
      }),
      noParams,
    );
    expect(res.status).toBe(201);
    const { id } = await res.json();
    // The route hands a new run to this process's runner (built with the registry's tool schemas).
    await app.container.evals.drain();
    // The tools went upstream as the model sees them; the call was scored, not run.
    const tools = (upstream.requests[0]!.body.tools as { function: { name: string } }[]).map(
      (t) => t.function.name,
    );
    expect(tools).toEqual(expect.arrayContaining(["current_time", "convert_time"]));
    const run = await getRun(db, acme, id);
    expect(run.status).toBe("done");
    expect(run.targets[0]).toMatchObject({ passed: 1, passRate: 1 });
    const [row] = await itemRows(id);
    expect(row!.toolCalls).toEqual([{ name: "current_time", args: { timezone: "Asia/Tokyo" } }]);
  });
});

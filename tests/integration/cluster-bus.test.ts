// Two replicas, each with its own cluster bus (its own listening connection) on real PostgreSQL and on real Redis:
// Stop, Approve / Deny and cooldowns reach the instance they concern, and only for their owner.
import Redis from "ioredis";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Confirmations } from "@/lib/agent/confirmations";
import { RunningTurns } from "@/lib/agent/stop-registry";
import { ClusterBus, type ClusterBusOptions, MAX_PAYLOAD_BYTES, shareCooldowns, topic } from "@/lib/cluster";
import { DEFAULT_COOLDOWN } from "@/lib/gateway/config";
import { CooldownTracker } from "@/lib/gateway/cooldown";
import { createEmptyDatabase, postgresAdminUrl, type TestDatabase } from "../helpers/db";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = [
  ...(postgresAdminUrl ? [{ name: "PostgreSQL LISTEN/NOTIFY", via: "postgres" as const }] : []),
  ...(redisUrl ? [{ name: "Redis pub/sub", via: "redis" as const }] : []),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks until `ask` gives `want` or the deadline passes; returns what it saw last and how long it took. */
async function pollUntil<T>(ask: () => T, want: T, deadlineMs = 3_000) {
  const started = performance.now();
  let seen = ask();
  while (seen !== want && performance.now() - started < deadlineMs) {
    await sleep(10);
    seen = ask();
  }
  return { seen, ms: performance.now() - started };
}

const alice = { tenantId: "tenant-acme", userId: "user-alice" };
const bob = { tenantId: "tenant-acme", userId: "user-bob" };
const aliceElsewhere = { tenantId: "tenant-globex", userId: "user-alice" };

describe.each(setups)("the cluster bus between two replicas: $name", ({ via }) => {
  let database: TestDatabase | undefined;
  let source: ClusterBusOptions;
  const buses: ClusterBus[] = [];
  let a: ClusterBus;
  let b: ClusterBus;
  let run = 0;

  /** A replica's bus: its own connection, named so a test can find (and kill) it. */
  async function replica(name: string): Promise<ClusterBus> {
    const bus = new ClusterBus({ ...source, clientName: `tollgate-bus-test-${name}-${run}`, retryMs: 100 });
    buses.push(bus);
    bus.start();
    await bus.ready;
    return bus;
  }

  beforeAll(async () => {
    if (via === "postgres") {
      // NOTIFY reaches the listeners of one database: a database of the test's own is a cluster of its own.
      database = await createEmptyDatabase("postgres");
      source = { postgresUrl: database.url! };
    } else source = { redisUrl, redisPrefix: `tollgate-bus-test-${process.pid}-${Date.now()}:` };
  });
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
    run++;
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function twoReplicas() {
    a = await replica("a");
    b = await replica("b");
    return { a, b };
  }

  describe("Stop", () => {
    it("a Stop sent through one replica aborts the owner's turn running on the other", async () => {
      await twoReplicas();
      const here = new RunningTurns(a);
      const there = new RunningTurns(b);
      const controller = new AbortController();
      const forget = there.register("turn-1", alice, controller);
      expect(await here.stop("turn-1", alice)).toBe(true);
      expect(controller.signal.aborted).toBe(true);
      expect((controller.signal.reason as Error).message).toBe("stopped by the user");
      forget();
      // Ended there: no instance has it any more.
      expect(await here.stop("turn-1", alice)).toBe(false);
    });

    it("another user, or the same user in another tenant, cannot stop it from either replica", async () => {
      await twoReplicas();
      const here = new RunningTurns(a);
      const there = new RunningTurns(b);
      const controller = new AbortController();
      there.register("turn-2", alice, controller);
      expect(await here.stop("turn-2", bob)).toBe(false);
      expect(await here.stop("turn-2", aliceElsewhere)).toBe(false);
      expect(await there.stop("turn-2", bob)).toBe(false);
      expect(controller.signal.aborted).toBe(false);
      expect(await here.stop("turn-2", alice)).toBe(true);
    });

    it("a turn running nowhere is not stopped, and an id no turn can have is not asked about", async () => {
      await twoReplicas();
      const here = new RunningTurns(a);
      new RunningTurns(b);
      expect(await here.stop("turn-nowhere", alice)).toBe(false);
      expect(await here.stop("x".repeat(10_000), alice)).toBe(false);
    });
  });

  describe("Approve / Deny", () => {
    const call = { turnId: "turn-9", callId: "call_transfer" };
    const request = { ...call, ...alice };

    it("an Approve sent to the other replica is applied there exactly once; a second one hears it was decided", async () => {
      await twoReplicas();
      const c = await replica("c");
      const desk = new Confirmations({ timeoutMs: 30_000, cluster: a });
      const third = new Confirmations({ timeoutMs: 30_000, cluster: c });
      const waiting = new Confirmations({ timeoutMs: 30_000, cluster: b });
      const pending = waiting.ask(request, new AbortController().signal);
      // Three answers at once, from two replicas: one decides, the others are told it is settled.
      const results = await Promise.all([
        desk.decide(call, alice, true),
        desk.decide(call, alice, true),
        third.decide(call, alice, true),
      ]);
      expect(results.filter((r) => r.status === "decided")).toHaveLength(1);
      expect(results.filter((r) => r.status === "settled")).toEqual([
        { status: "settled", decision: "approve" },
        { status: "settled", decision: "approve" },
      ]);
      expect(await pending.outcome).toMatchObject({ decision: "approve", by: alice.userId });
      expect(waiting.pending).toBe(0);
      expect(await desk.decide(call, alice, false)).toEqual({ status: "settled", decision: "approve" });
    });

    it("a Deny sent to the other replica ends the wait as a denial", async () => {
      await twoReplicas();
      const desk = new Confirmations({ timeoutMs: 30_000, cluster: a });
      const waiting = new Confirmations({ timeoutMs: 30_000, cluster: b });
      const pending = waiting.ask(request, new AbortController().signal);
      expect(await desk.decide(call, alice, false)).toEqual({ status: "decided" });
      expect(await pending.outcome).toMatchObject({ decision: "deny", by: alice.userId });
    });

    it("a wrong owner gets `unknown` and changes nothing; the owner still decides", async () => {
      await twoReplicas();
      const desk = new Confirmations({ timeoutMs: 30_000, cluster: a });
      const waiting = new Confirmations({ timeoutMs: 30_000, cluster: b });
      const pending = waiting.ask(request, new AbortController().signal);
      expect(await desk.decide(call, bob, true)).toEqual({ status: "unknown" });
      expect(await desk.decide(call, aliceElsewhere, true)).toEqual({ status: "unknown" });
      expect(waiting.pending).toBe(1);
      expect(await desk.decide(call, alice, true)).toEqual({ status: "decided" });
      expect(await pending.outcome).toMatchObject({ decision: "approve" });
      // Settled calls are not told to other users either.
      expect(await desk.decide(call, bob, true)).toEqual({ status: "unknown" });
    });

    it("a call that waits nowhere is `unknown`; one cancelled by Stop there is settled as cancelled", async () => {
      await twoReplicas();
      const desk = new Confirmations({ timeoutMs: 30_000, cluster: a });
      const waiting = new Confirmations({ timeoutMs: 30_000, cluster: b });
      expect(await desk.decide(call, alice, true)).toEqual({ status: "unknown" });
      const stop = new AbortController();
      const pending = waiting.ask(request, stop.signal);
      stop.abort();
      expect(await pending.outcome).toMatchObject({ decision: "cancelled" });
      expect(await desk.decide(call, alice, true)).toEqual({ status: "settled", decision: "cancelled" });
    });
  });

  describe("cooldowns", () => {
    const key = "flaky/gpt-4o-mini";
    const policy = { ...DEFAULT_COOLDOWN, consecutiveFailures: 3, cooldownMs: 30_000 };

    it("a deployment cooled down on one replica is skipped by the other within a second, until the same moment", async () => {
      await twoReplicas();
      const here = new CooldownTracker(policy, Date.now, { keys: [key] });
      const there = new CooldownTracker(policy, Date.now, { keys: [key] });
      shareCooldowns(a, here);
      shareCooldowns(b, there);
      for (let i = 0; i < 3; i++) here.recordFailure(key);
      expect(here.isCoolingDown(key)).toBe(true);
      const { seen, ms } = await pollUntil(() => there.isCoolingDown(key), true);
      expect(seen).toBe(true);
      expect(ms).toBeLessThan(1_000);
      expect(there.coolingUntil(key)).toBe(here.coolingUntil(key));
      expect(there.tryAcquire(key).ok).toBe(false);
    });

    it("a probe that brings the deployment back on one replica brings it back on the other", async () => {
      await twoReplicas();
      let nowHere = Date.now();
      const nowThere = nowHere;
      const here = new CooldownTracker(policy, () => nowHere, { keys: [key] });
      const there = new CooldownTracker(policy, () => nowThere, { keys: [key] });
      shareCooldowns(a, here);
      shareCooldowns(b, there);
      for (let i = 0; i < 3; i++) here.recordFailure(key);
      expect((await pollUntil(() => there.isCoolingDown(key), true)).seen).toBe(true);
      // Only this replica's cooldown has run out: its probe goes through and succeeds.
      nowHere += 30_000;
      expect(here.tryAcquire(key).ok).toBe(true);
      here.recordSuccess(key);
      const { seen, ms } = await pollUntil(() => there.isCoolingDown(key), false);
      expect(seen).toBe(false);
      expect(ms).toBeLessThan(1_000);
      // Back, not merely probing: every call goes through.
      expect(there.tryAcquire(key).ok).toBe(true);
      expect(there.tryAcquire(key).ok).toBe(true);
    });
  });

  describe("the bus itself", () => {
    const note = topic("test.note", z.object({ text: z.string().max(10_000) }));

    it("ignores what is not its message (not JSON, no envelope, a kind nobody serves, a bad body) and goes on", async () => {
      await twoReplicas();
      const heard: string[] = [];
      b.on(note, ({ text }) => heard.push(text));
      const here = new RunningTurns(a);
      const there = new RunningTurns(b);
      const controller = new AbortController();
      there.register("turn-3", alice, controller);
      for (const payload of [
        "not json",
        JSON.stringify({ kind: "turn.stop" }),
        JSON.stringify({ v: 2, kind: "turn.stop", from: "x", id: "y", body: { turnId: "turn-3", ...alice } }),
        JSON.stringify({ v: 1, kind: "from.the.future", from: "x", body: { anything: true } }),
        JSON.stringify({ v: 1, kind: "turn.stop", from: "x", id: "y", body: { turnId: 42 } }),
        JSON.stringify({ v: 1, kind: "test.note", from: "x", body: { text: 7 } }),
      ])
        await sendRaw(payload);
      expect(await a.emit(note, { text: "hello" })).toBe(true);
      expect((await pollUntil(() => heard.length, 1)).seen).toBe(1);
      expect(heard).toEqual(["hello"]);
      expect(controller.signal.aborted).toBe(false);
      expect(await here.stop("turn-3", alice)).toBe(true);
    });

    it("sends nothing larger than a NOTIFY may carry, and a replica never hears its own messages", async () => {
      await twoReplicas();
      const heardHere: string[] = [];
      const heardThere: string[] = [];
      a.on(note, ({ text }) => heardHere.push(text));
      b.on(note, ({ text }) => heardThere.push(text));
      expect(await a.emit(note, { text: "x".repeat(MAX_PAYLOAD_BYTES) })).toBe(false);
      expect(await a.emit(note, { text: "small" })).toBe(true);
      expect((await pollUntil(() => heardThere.length, 1)).seen).toBe(1);
      await sleep(50);
      expect(heardHere).toEqual([]);
      expect(heardThere).toEqual(["small"]);
    });

    it("when a replica's connection is killed it reconnects, and Stop reaches it again", async () => {
      await twoReplicas();
      const here = new RunningTurns(a);
      const there = new RunningTurns(b);
      const statuses: boolean[] = [];
      b.onStatus((up) => statuses.push(up));
      await killConnection(`tollgate-bus-test-b-${run}`);
      expect((await pollUntil(() => b.isUp, false)).seen).toBe(false);
      expect((await pollUntil(() => b.isUp, true, 10_000)).seen).toBe(true);
      expect(statuses).toEqual([true, false, true]);
      const controller = new AbortController();
      there.register("turn-4", alice, controller);
      expect(await here.stop("turn-4", alice)).toBe(true);
      expect(controller.signal.aborted).toBe(true);
    });
  });

  /** A payload on the cluster channel, from outside any bus. */
  async function sendRaw(payload: string) {
    if (via === "postgres") {
      const sql = postgres(database!.url!, { max: 1, onnotice: () => {} });
      await sql`select pg_notify('tollgate_cluster', ${payload})`;
      await sql.end();
    } else {
      const redis = new Redis(redisUrl);
      await redis.publish(`${source.redisPrefix}cluster`, payload);
      await redis.quit();
    }
  }

  async function killConnection(name: string) {
    if (via === "postgres") {
      const sql = postgres(database!.url!, { max: 1, onnotice: () => {} });
      const killed =
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${name}`;
      await sql.end();
      expect(killed.length).toBeGreaterThan(0);
    } else {
      const redis = new Redis(redisUrl);
      const clients = (await redis.client("LIST")) as string;
      const ids = clients
        .split("\n")
        .filter((line) => line.includes(`name=${name}-${process.pid} `))
        .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]!);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) await redis.client("KILL", "ID", id);
      await redis.quit();
    }
  }
});

describe("the cluster bus alone (the embedded database: one process)", () => {
  it("asks nobody and answers at once; the process still stops its own turns and decides its own calls", async () => {
    const bus = new ClusterBus({}).start();
    try {
      expect(bus.via).toBe("local");
      expect(bus.isUp).toBe(true);
      expect(bus.reachesOthers).toBe(false);
      const turns = new RunningTurns(bus);
      const controller = new AbortController();
      turns.register("t", alice, controller);
      expect(await turns.stop("t", bob)).toBe(false);
      expect(await turns.stop("t", alice)).toBe(true);
      const desk = new Confirmations({ timeoutMs: 30_000, cluster: bus });
      expect(await desk.decide({ turnId: "t", callId: "c" }, alice, true)).toEqual({ status: "unknown" });
    } finally {
      await bus.close();
    }
  });
});

// Leased allowances (lib/pipeline/allowances.ts) on every counter store: several instances (each an Allowances
// with its own instance id, as replicas are) spend one limit. A property test over interleavings (fast-check's
// scheduler decides the order in which the store's answers arrive, and loses some of them, before or after the
// store applied the operation) checks the bound: spent plus what running calls hold never passes the limit, and once
// everything is settled the store holds exactly what they spent — nothing lost, nothing counted twice.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Allowances } from "@/lib/pipeline/allowances";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { createMigratedDatabase, testDbKinds } from "../helpers/db";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const stores = [...testDbKinds, ...(redisUrl ? ["redis" as const] : [])];

/** A store whose lease answers can be lost: `before` (never applied) or `after` (applied, answer lost). */
class Flaky implements CounterStore {
  lose: "before" | "after" | null = null;
  down = false;
  constructor(private readonly real: CounterStore) {}
  take: CounterStore["take"] = (...a) => this.real.take(...a);
  add: CounterStore["add"] = (...a) => this.real.add(...a);
  read: CounterStore["read"] = (...a) => this.real.read(...a);
  /** While set, lease operations hang until it resolves, then reach the store (a late first try). */
  stalled: Promise<void> | null = null;
  /** Lease operations asked of it. */
  operations = 0;
  /** Counters those operations named (each a row the store writes). */
  rows = 0;
  lease: CounterStore["lease"] = async (...a) => {
    this.operations++;
    this.rows += a[3].length;
    if (this.down) throw new Error("counter store unreachable");
    if (this.stalled) await this.stalled;
    const lose = this.lose;
    this.lose = null;
    if (lose === "before") throw new Error("connection reset before the statement");
    const reply = await this.real.lease(...a);
    if (lose === "after") throw new Error("connection reset after the commit");
    return reply;
  };
}

const fast = { tickMs: 5, idleMs: 50, horizonMs: 100, waitMs: 0 };

describe.each(stores)("leased allowances on %s", (kind) => {
  let real: CounterStore;
  let close: () => Promise<unknown>;

  beforeAll(async () => {
    if (kind === "redis") {
      const redis = new Redis(redisUrl);
      real = new RedisCounters(redis, `tollgate-test-allow-${process.pid}-${Date.now()}:`);
      close = () => redis.quit();
    } else {
      const test = await createMigratedDatabase(kind);
      real = new PostgresCounters(async () => test.handle.db);
      close = () => test.drop();
    }
  });
  afterAll(() => close());

  it("never lets instances together spend past a hard limit, and settles exactly what was spent (any interleaving, lost answers)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 5, max: 60 }),
        fc.array(
          fc.record({
            instance: fc.nat(3),
            amount: fc.integer({ min: 1, max: 9 }),
            // What the call really used of its reservation.
            used: fc.integer({ min: 0, max: 100 }),
            lose: fc.constantFrom(null, null, null, "before" as const, "after" as const),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (s, instances, limit, calls) => {
          const tenantId = randomUUID();
          const key = `prop:${randomUUID()}`;
          const flaky = Array.from({ length: instances }, () => new Flaky(real));
          const managers = flaky.map((store) => new Allowances(store, fast));
          // The scheduler releases each store answer in an order of its choosing.
          for (const [i, store] of flaky.entries()) {
            const lease = store.lease;
            store.lease = async (...a) => {
              const answer = await s.schedule(
                lease(...a).then(
                  (value) => ({ value }),
                  (error: unknown) => ({ error }),
                ),
                `lease@${i}`,
              );
              if ("error" in answer) throw answer.error;
              return answer.value;
            };
          }
          let inflight = 0;
          let spent = 0;
          const runs = calls.map(async (call) => {
            const i = call.instance % instances;
            flaky[i]!.lose = call.lose;
            const held = await managers[i]!.reserve(tenantId, [
              { key, amount: call.amount, limit, ttlSeconds: 60 },
            ]);
            if (!held.ok) return;
            // Spent so far plus what every running call holds: never past the limit, at any moment.
            inflight += call.amount;
            expect(spent + inflight).toBeLessThanOrEqual(limit);
            await Promise.resolve();
            const used = Math.floor((call.amount * call.used) / 100);
            inflight -= call.amount;
            spent += used;
            held.settle([used]);
          });
          await s.waitFor(Promise.all(runs));
          // Background renewals still waiting for their answers get them, then the store answers at once.
          for (const store of flaky) store.lease = (...a) => real.lease(...a);
          while (s.count() > 0) await s.waitOne();
          await Promise.all(managers.map((m) => m.release()));
          const [settled] = await real.read(tenantId, [key]);
          expect(settled).toBe(spent);
        },
      ),
      { numRuns: kind === "pglite" ? 40 : 25 },
    );
  });

  it("leases ahead: a busy instance spends out of memory, with far fewer store operations than calls", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, { ...fast, tickMs: 20, horizonMs: 1_000 });
    const tenantId = randomUUID();
    const line = { key: `rate:${randomUUID()}`, amount: 1, limit: 1_000_000, ttlSeconds: 60 };
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 25 }, async () => {
          const held = await manager.reserve(tenantId, [line]);
          if (!held.ok) throw new Error("refused");
          held.settle([1]);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await manager.release();
    expect((await real.read(tenantId, [line.key]))[0]).toBe(500);
    expect(store.operations).toBeLessThan(100);
  });

  it("leases ahead of reservations: calls that reserve far more than they spend, 16 at once, still seldom ask the store", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, { ...fast, tickMs: 200, idleMs: 2_000, horizonMs: 500 });
    const tenantId = randomUUID();
    // A call as the budget and the rate limit hold it: one request; tokens counted when it ends; a budget's
    // reservation (its worst case, 40,000) far above what it is billed (35).
    const lines = [
      { key: `rpm:${randomUUID()}`, amount: 1, limit: 1_000_000, ttlSeconds: 60 },
      { key: `tpm:${randomUUID()}`, amount: 0, limit: 100_000_000, ttlSeconds: 60 },
      { key: `usd:${randomUUID()}`, amount: 40_000, limit: 1_000_000_000_000, ttlSeconds: 60 },
    ];
    let calls = 0;
    const until = performance.now() + 3_000;
    // After the first second (the rates are learnt): the steady state.
    let steady = { calls: 0, operations: 0, rows: 0, at: 0 };
    const learnt = setTimeout(() => {
      steady = { calls, operations: store.operations, rows: store.rows, at: performance.now() };
    }, 1_000);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const held = await manager.reserve(tenantId, lines);
          if (!held.ok) throw new Error("refused");
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          held.settle([1, 12, 35]);
        }
      }),
    );
    await manager.release();
    expect(
      await real.read(
        tenantId,
        lines.map((l) => l.key),
      ),
    ).toEqual([calls, 12 * calls, 35 * calls]);
    clearTimeout(learnt);
    expect(calls - steady.calls).toBeGreaterThan(1_000);
    // Settled and renewed on the tick (every 200 ms), not on calls: a few operations a second.
    expect(store.operations - steady.operations).toBeLessThan((calls - steady.calls) / 100);
  });

  it("many quiet counters (50 end users' templates, one call each in turn, 16 at once) seldom ask the store, and settle each counter about once a second", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, { ...fast, tickMs: 200, idleMs: 2_000, horizonMs: 500 });
    const tenantId = randomUUID();
    const shared = [
      { key: `rpm:${randomUUID()}`, amount: 1, limit: 1_000_000, ttlSeconds: 60 },
      { key: `usd:${randomUUID()}`, amount: 40_000, limit: 1_000_000_000_000, ttlSeconds: 60 },
    ];
    // Each end user's own counters, as a template gives them: far from their limits, each used by one call in 50.
    const users = Array.from({ length: 50 }, () => [
      { key: `rpm:${randomUUID()}`, amount: 1, limit: 100_000, ttlSeconds: 60 },
      { key: `usd:${randomUUID()}`, amount: 40_000, limit: 100_000_000_000, ttlSeconds: 60 },
    ]);
    let calls = 0;
    const until = performance.now() + 3_000;
    let steady = { calls: 0, operations: 0, rows: 0, at: 0 };
    const learnt = setTimeout(() => {
      steady = { calls, operations: store.operations, rows: store.rows, at: performance.now() };
    }, 1_000);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const lines = [...shared, ...users[calls % users.length]!];
          const held = await manager.reserve(tenantId, lines);
          if (!held.ok) throw new Error("refused");
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          held.settle([1, 35, 1, 35]);
        }
      }),
    );
    const rows = store.rows - steady.rows;
    const seconds = (performance.now() - steady.at) / 1000;
    await manager.release();
    clearTimeout(learnt);
    const spent = await real.read(tenantId, [shared[0]!.key, shared[1]!.key]);
    expect(spent).toEqual([calls, 35 * calls]);
    expect(store.operations - steady.operations).toBeLessThan((calls - steady.calls) / 20);
    // Spend in a held lease is already counted: settling it is news for other instances, not a bound. The 102
    // counters settle within settleMs (1 s here), not every 200 ms tick: at most ~2 rows each a second (a
    // renewal carries the spend too), where settling every tick wrote ~5.
    expect(rows / seconds).toBeLessThan(102 * 2.5);
  });

  it("a quiet counter keeps a small share of its room between calls seconds apart, and gives back a large one", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, {
      ...fast,
      tickMs: 20,
      idleMs: 100,
      keepMs: 2_000,
      horizonMs: 500,
    });
    const tenantId = randomUUID();
    const roomy = { key: `usd:${randomUUID()}`, amount: 40_000, limit: 1_000_000_000_000, ttlSeconds: 60 };
    // Near its limit a lease is most of the room: it goes back after idleMs, for the other instances.
    const tight = { key: `usd:${randomUUID()}`, amount: 40_000, limit: 200_000, ttlSeconds: 60 };
    const once = async (line: typeof roomy) => {
      const held = await manager.reserve(tenantId, [line]);
      if (!held.ok) throw new Error("refused");
      held.settle([35]);
    };
    await once(roomy);
    await once(tight);
    const before = store.operations;
    await new Promise((resolve) => setTimeout(resolve, 400));
    // The tight counter's lease went back (one operation), the roomy one's is kept: its next call asks nothing.
    const gaveBack = store.operations - before;
    expect(gaveBack).toBeGreaterThanOrEqual(1);
    await once(roomy);
    await once(roomy);
    expect(store.operations - before).toBe(gaveBack);
    await manager.release();
    expect(await real.read(tenantId, [roomy.key, tight.key])).toEqual([105, 35]);
  });

  it("a counter that paused (its allowance given back) and a new one both reach their pace in a few operations", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, { ...fast, tickMs: 50, idleMs: 300, keepMs: 300, horizonMs: 500 });
    const tenantId = randomUUID();
    const line = { key: `usd:${randomUUID()}`, amount: 40_000, limit: 1_000_000_000_000, ttlSeconds: 60 };
    const burst = async (ms: number) => {
      let calls = 0;
      const before = store.operations;
      const until = performance.now() + ms;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < until) {
            const held = await manager.reserve(tenantId, [line]);
            if (!held.ok) throw new Error("refused");
            calls++;
            await new Promise((resolve) => setTimeout(resolve, 5));
            held.settle([35]);
          }
        }),
      );
      return { calls, operations: store.operations - before };
    };
    const first = await burst(600);
    // Quiet for longer than idleMs: the allowance goes back to the store.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(manager.stats().leasesHeld).toBe(0);
    const again = await burst(400);
    await manager.release();
    expect((await real.read(tenantId, [line.key]))[0]).toBe(35 * (first.calls + again.calls));
    // A cold counter doubles what it asks for each time it runs short; a paused one remembers its pace.
    expect(first.operations).toBeLessThan(first.calls / 10);
    expect(again.operations).toBeLessThan(again.calls / 20);
  });

  it("store unreachable: calls go on the allowance held, then a hard limit fails closed; soft counters fail open; the store back, nothing is counted twice", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, { ...fast, idleMs: 60_000, horizonMs: 1_000, tickMs: 10 });
    const tenantId = randomUUID();
    const hard = { key: `hard:${randomUUID()}`, amount: 1, limit: 1_000, ttlSeconds: 60 };
    const soft = { key: `soft:${randomUUID()}`, amount: 5, limit: null, ttlSeconds: 60 };
    // Warm up: a rate, so the next lease is sized ahead of need.
    for (let i = 0; i < 10; i++) {
      const held = await manager.reserve(tenantId, [hard, soft]);
      if (held.ok) held.settle([1, 5]);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await manager.flush();
    store.down = true;
    let through = 0;
    let refused: string | undefined;
    for (let i = 0; i < 2_000 && !refused; i++) {
      const held = await manager.reserve(tenantId, [hard, soft]);
      if (held.ok) {
        through++;
        expect(held.degraded || through > 0).toBe(true);
        held.settle([1, 5]);
      } else refused = held.reason;
    }
    expect(through).toBeGreaterThan(0);
    expect(refused).toBe("unavailable");
    // A soft-only counter goes on while the store is down, marked degraded.
    const softOnly = await manager.reserve(tenantId, [soft]);
    expect(softOnly).toMatchObject({ ok: true, degraded: true });
    if (softOnly.ok) softOnly.settle([5]);
    store.down = false;
    await manager.release();
    const [hardSpent, softSpent] = await real.read(tenantId, [hard.key, soft.key]);
    expect(hardSpent).toBe(10 + through);
    expect(softSpent).toBe(5 * (10 + through + 1));
  });

  it("store stalled: an operation unanswered past the timeout counts as lost, hard limits fail closed, and its late first try is not counted twice", async () => {
    const store = new Flaky(real);
    const manager = new Allowances(store, {
      ...fast,
      idleMs: 60_000,
      horizonMs: 0,
      tickMs: 10,
      timeoutMs: 100,
    });
    const tenantId = randomUUID();
    const hard = { key: `stall:${randomUUID()}`, amount: 1, limit: 1_000, ttlSeconds: 60 };
    const first = await manager.reserve(tenantId, [hard]);
    expect(first.ok).toBe(true);
    // Its spend is not settled yet: the stalled operation carries it, and must be counted once.
    if (first.ok) first.settle([1]);
    let resume!: () => void;
    store.stalled = new Promise((resolve) => {
      resume = resolve;
    });
    const started = performance.now();
    // With no allowance ahead (horizon 0), the next call needs the store: refused once the timeout passes.
    const held = await manager.reserve(tenantId, [hard]);
    expect(held).toMatchObject({ ok: false, reason: "unavailable" });
    expect(performance.now() - started).toBeLessThan(2_000);
    // The stalled operations reach the store late; the retries carry the same sequence numbers.
    store.stalled = null;
    resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await manager.reserve(tenantId, [hard]);
    expect(again.ok).toBe(true);
    if (again.ok) again.settle([1]);
    await manager.release();
    expect((await real.read(tenantId, [hard.key]))[0]).toBe(2);
  });

  it("near the limit, leases shrink to one call's need: two instances spend all of it between them", async () => {
    const tenantId = randomUUID();
    const line = { key: `near:${randomUUID()}`, amount: 3, limit: 300, ttlSeconds: 60 };
    const a = new Allowances(real, { ...fast, waitMs: 200 });
    const b = new Allowances(real, { ...fast, waitMs: 200 });
    let admitted = 0;
    await Promise.all(
      [a, b].map(async (m) => {
        for (;;) {
          const held = await m.reserve(tenantId, [line]);
          if (!held.ok) return;
          admitted += 3;
          held.settle([3]);
        }
      }),
    );
    expect(admitted).toBe(300);
    await Promise.all([a.release(), b.release()]);
    expect((await real.read(tenantId, [line.key]))[0]).toBe(300);
  });
});

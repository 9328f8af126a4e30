// The read router's decisions with the two databases' positions scripted: how far behind the replica is (from
// the primary's WAL positions it saw and when), when the pages say "as of", when reads leave for the primary, and
// which errors set the replica aside. The same router against a real streaming replica:
// tests/integration/read-replica.test.ts.
import { describe, expect, it } from "vitest";
import type { Database, DatabaseHandle } from "@/db";
import {
  isReplicaFailure,
  lsnValue,
  ReadRouter,
  type ReadRouterOptions,
  readRouterOptionsFromEnv,
} from "@/db/read-replica";

const OPTIONS: ReadRouterOptions = {
  staleMs: 5_000,
  maxLagMs: 60_000,
  checkMs: 1_000,
  retryMs: 5_000,
  timeoutMs: 1_000,
};
const lsn = (n: number) => `0/${n.toString(16).toUpperCase()}`;

function scripted() {
  const state = {
    now: 1_000_000,
    primaryLsn: 100,
    replayed: 100,
    replicaDown: false,
    commitAge: null as number | null,
  };
  const fake = (answer: () => Record<string, unknown>) =>
    ({
      execute: async () => {
        if (state.replicaDown && answer === replicaAnswer)
          throw Object.assign(new Error("gone"), { code: "ECONNREFUSED" });
        return [answer()];
      },
    }) as unknown as Database;
  const primaryAnswer = () => ({ lsn: lsn(state.primaryLsn) });
  const replicaAnswer = () => ({ recovery: true, lsn: lsn(state.replayed), age: state.commitAge });
  const primary = { db: fake(primaryAnswer) } as DatabaseHandle;
  const replicaDb = fake(replicaAnswer);
  const changes: string[] = [];
  const router = new ReadRouter(
    async () => primary,
    { db: replicaDb, client: null, label: "replica" },
    OPTIONS,
    { onChange: (usable, d) => changes.push(usable ? "up" : `down:${d.reason}`) },
    () => state.now,
  );
  const tick = (ms: number) => {
    state.now += ms;
  };
  return { state, router, primary, replicaDb, changes, tick };
}

describe("the read router", () => {
  it("orders LSNs as PostgreSQL does", () => {
    expect(lsnValue("0/10") < lsnValue("0/11")).toBe(true);
    expect(lsnValue("1/0") > lsnValue("0/FFFFFFFF")).toBe(true);
    expect(lsnValue("16/B374D848")).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it("reads from a replica that has replayed what the primary has, however old the primary's last write", async () => {
    const { router, replicaDb, tick } = scripted();
    const from = await router.source();
    expect(from).toMatchObject({ source: "replica", lagMs: 0, asOf: null });
    expect(from.db).toBe(replicaDb);
    tick(600_000);
    expect(await router.source()).toMatchObject({ source: "replica", lagMs: 0, asOf: null });
  });

  it("measures lag from the primary's positions it saw: as of the newest one the replica has passed", async () => {
    const { state, router, changes, tick, primary } = scripted();
    await router.source();
    // The primary moves on; the replica stays where it was.
    state.primaryLsn = 200;
    tick(1_000);
    expect((await router.source()).lagMs).toBe(1_000);
    state.primaryLsn = 300;
    tick(1_000);
    expect((await router.source()).lagMs).toBe(2_000);
    // It replays past 200 (seen 2 s ago), not to 300 (seen 1 s ago): 2 s behind, not 3.
    state.replayed = 250;
    tick(1_000);
    const behind = await router.source();
    expect(behind.lagMs).toBe(2_000);
    expect(behind.asOf).toBeNull();
    // Stuck past DATABASE_READ_STALE_MS: "as of" the moment of the last position it passed.
    for (let i = 0; i < 6; i++) {
      tick(1_000);
      await router.source();
    }
    const stale = await router.source();
    expect(stale.source).toBe("replica");
    expect(stale.lagMs).toBe(8_000);
    expect(stale.asOf?.getTime()).toBe(state.now - 8_000);
    // Past DATABASE_READ_MAX_LAG_MS: the primary, said once.
    for (let i = 0; i < 60; i++) {
      tick(1_000);
      await router.source();
    }
    const fallen = await router.source();
    expect(fallen.source).toBe("primary");
    expect(fallen.db).toBe(primary.db);
    expect(router.stats().fallbacks.lagging).toBeGreaterThan(0);
    expect(changes).toEqual(["down:lagging"]);
    state.replayed = state.primaryLsn;
    tick(1_000);
    expect((await router.source()).source).toBe("replica");
    expect(changes).toEqual(["down:lagging", "up"]);
  });

  it("knows a replica behind at its first check is as old as the last commit it replayed", async () => {
    const { state, router } = scripted();
    state.primaryLsn = 500;
    state.replayed = 300;
    state.commitAge = 8_000;
    const from = await router.source();
    expect(from.lagMs).toBe(8_000);
    expect(from.asOf?.getTime()).toBe(state.now - 8_000);
    // A mark it has passed that is fresher than its last commit (a quiet primary) wins.
    state.replayed = 500;
    state.primaryLsn = 600;
    state.now += 1_000;
    expect((await router.source()).lagMs).toBe(1_000);
  });

  it("leaves a replica that cannot be reached for the primary, and tries it again after the retry time", async () => {
    const { state, router, changes, tick } = scripted();
    state.replicaDown = true;
    expect((await router.source()).source).toBe("primary");
    expect(changes).toEqual(["down:unreachable"]);
    state.replicaDown = false;
    tick(1_000);
    expect((await router.source()).source).toBe("primary");
    tick(5_000);
    expect((await router.source()).source).toBe("replica");
    expect(router.stats()).toMatchObject({ usingReplica: true, fallbacks: { unreachable: 2, lagging: 0 } });
  });

  it("answers a read the replica fails from the primary, and passes any other error on", async () => {
    const { router, primary, replicaDb } = scripted();
    const seen: Database[] = [];
    const answer = await router.read(async (from) => {
      seen.push(from.db);
      if (from.db === replicaDb) throw Object.assign(new Error("terminating connection"), { code: "57P01" });
      return "rows";
    });
    expect(answer).toBe("rows");
    expect(seen).toEqual([replicaDb, primary.db]);
    const bad = Object.assign(new Error("syntax"), { code: "42601" });
    const other = scripted();
    await expect(other.router.read(async () => Promise.reject(bad))).rejects.toBe(bad);
  });

  it("tells replica failures from bad queries", () => {
    for (const code of [
      "08006",
      "57P01",
      "57P03",
      "40001",
      "CONNECTION_CLOSED",
      "CONNECT_TIMEOUT",
      "ECONNREFUSED",
      "DATABASE_SILENT",
    ])
      expect(isReplicaFailure(Object.assign(new Error(code), { code }))).toBe(true);
    // As Drizzle throws it: "Failed query", the driver's error its cause.
    const wrapped = new Error("Failed query: select 1", {
      cause: Object.assign(new Error("x"), { code: "ECONNRESET" }),
    });
    expect(isReplicaFailure(wrapped)).toBe(true);
    expect(
      isReplicaFailure(
        new Error("Failed query", { cause: Object.assign(new Error("y"), { code: "23505" }) }),
      ),
    ).toBe(false);
    for (const code of ["42601", "23505", "22P02"])
      expect(isReplicaFailure(Object.assign(new Error(code), { code }))).toBe(false);
    expect(isReplicaFailure(new Error("plain"))).toBe(false);
  });

  it("reads its thresholds from the environment and refuses a bad one by name", () => {
    expect(readRouterOptionsFromEnv({})).toMatchObject({ staleMs: 5_000, maxLagMs: 60_000 });
    expect(
      readRouterOptionsFromEnv({ DATABASE_READ_STALE_MS: "2000", DATABASE_READ_MAX_LAG_MS: "30000" }),
    ).toMatchObject({
      staleMs: 2_000,
      maxLagMs: 30_000,
    });
    expect(() => readRouterOptionsFromEnv({ DATABASE_READ_MAX_LAG_MS: "soon" })).toThrow(
      /DATABASE_READ_MAX_LAG_MS/,
    );
  });
});

// The PostgreSQL deadlines (db/client.ts, db/silent-server.ts) against a real server behind the fault proxy: a
// statement past the statement timeout is cancelled by the server; a black-holed server (nothing answers, nothing
// closes) fails the query within the silence deadline plus the probe, classified as the database being away, and
// the pool serves again as soon as the server is back, without a restart; a long statement on a live server is
// left to finish (the probe answers).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { dependencyFailure } from "@/lib/core/errors/dependency";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";
import { createEmptyDatabase, postgresAdminUrl, type TestDatabase } from "../helpers/db";

const SILENCE_MS = 600;
const PROBE_MS = 400;

describe.runIf(postgresAdminUrl)("PostgreSQL deadlines", () => {
  let test: TestDatabase;
  let proxy: FaultProxy;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    test = await createEmptyDatabase("postgres");
    const target = new URL(test.url!);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(test.url!);
    through.host = `127.0.0.1:${proxy.port}`;
    handle = await openDatabase({
      kind: "postgres",
      url: through.toString(),
      max: 3,
      deadlines: {
        statementTimeoutMs: 1_000,
        silenceMs: SILENCE_MS,
        probeMs: PROBE_MS,
        connectTimeoutMs: 3_000,
      },
    });
  });
  afterAll(async () => {
    await proxy?.set("pass");
    await handle?.close();
    await proxy?.close();
    await test?.drop();
  });

  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (error: unknown) => error,
    );

  it("has the server cancel a statement past the statement timeout, as the database being away", async () => {
    const error = await failureOf(handle.db.execute(sql`select pg_sleep(3)`));
    expect(dependencyFailure(error)).toEqual({ dependency: "database", cause: "57014" });
    // The connection stays usable.
    expect(await handle.db.execute(sql`select 1 as one`)).toEqual([{ one: 1 }]);
  });

  it("lets a statement without a timeout run past the silence deadline while the server answers the probe", async () => {
    const rows = await handle.withoutStatementTimeout((db) =>
      db.execute(sql`select pg_sleep(1.5), 'done' as state`),
    );
    expect(rows).toEqual([{ pg_sleep: "", state: "done" }]);
  });

  it("fails a query to a black-holed server within the deadline, then serves again once it is back", async () => {
    await handle.db.execute(sql`select 1`);
    await proxy.set("blackhole");
    const started = Date.now();
    const errors = await Promise.all([
      failureOf(handle.db.execute(sql`select 1`)),
      failureOf(handle.db.execute(sql`select 2`)),
    ]);
    const took = Date.now() - started;
    for (const error of errors) expect(dependencyFailure(error)?.dependency).toBe("database");
    expect(errors.map((e) => dependencyFailure(e)?.cause)).toContain("DATABASE_SILENT");
    // The silence deadline, the probe, and a connect attempt's own slack at most.
    expect(took).toBeLessThan(SILENCE_MS + PROBE_MS + 2_500);

    await proxy.set("pass");
    const back = Date.now();
    let answered: unknown = null;
    while (!answered && Date.now() - back < 5_000)
      answered = await handle.db.execute(sql`select 3 as three`).catch(() => null);
    expect(answered).toEqual([{ three: 3 }]);
    expect(Date.now() - back).toBeLessThan(5_000);
  });

  it("fails a query that waited past the acquire deadline for a full pool, and leaves the pool whole", async () => {
    const own = await openDatabase({
      kind: "postgres",
      url: test.url!,
      max: 1,
      deadlines: { statementTimeoutMs: 5_000, acquireTimeoutMs: 300 },
    });
    try {
      // The only connection is held by a transaction for 1.5 s (a busy connection would take the next query in its
      // pipeline; a held one cannot): a query and an advisory lock behind it give up at 300 ms.
      const busy = own.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_sleep(1.5)`);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const waited = await failureOf(own.db.execute(sql`select 1`));
      const took = Date.now() - started;
      expect(
        (waited as { cause?: { code?: string } }).cause?.code ?? (waited as { code?: string }).code,
      ).toBe("ACQUIRE_TIMEOUT");
      expect(dependencyFailure(waited)).toEqual({ dependency: "database", cause: "ACQUIRE_TIMEOUT" });
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(1_200);
      const lock = await failureOf(own.withAdvisoryLock(42_4242, async () => "held"));
      expect(dependencyFailure(lock)).toEqual({ dependency: "database", cause: "ACQUIRE_TIMEOUT" });
      // The statement that held the connection finishes, and the pool serves again.
      await busy;
      expect(await own.db.execute(sql`select 2 as two`)).toEqual([{ two: 2 }]);
      expect(await own.withAdvisoryLock(42_4242, async () => "held")).toBe("held");
    } finally {
      await own.close();
    }
  });
});

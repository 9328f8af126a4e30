import { fork } from "node:child_process";
import path from "node:path";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";
import { postgresAdminUrl } from "../helpers/db";

// postgres-js 3.4.x could throw `TypeError: Cannot read properties of null (reading 'write')` from a timer when a
// query was written on a connection whose socket had closed (a transaction's or a reserved connection's next
// statement, mid-outage), which no try/catch can catch: the whole process died. vendor/README.md has the patch.
// The workload runs in a child process so that such a crash is its exit code, not this worker's death.
// The same patch keeps a reset connection's next socket in step (a stale query state had a DataRow read the wrong
// statement), keeps a transaction or reserved holder off a connection once it has reconnected, and answers every
// reserve(): the child counts operations that never settle (`stalled`), and there must be none.

const CHILD = path.resolve("tests/fixtures/pg-outage-child.mjs");
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

type ChildReport = {
  counts: { ok: number; failed: number; odd: number; stalled: number };
  codes: Record<string, number>;
  recovered: boolean;
  oddSamples: string[];
  stalledSamples: string[];
};

describe.runIf(postgresAdminUrl)("PostgreSQL outage under load (postgres-js)", () => {
  let proxy: FaultProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it("fails the queries caught in the outage with ordinary errors, never crashes, and recovers", async () => {
    const admin = new URL(postgresAdminUrl);
    proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    const through = new URL(postgresAdminUrl);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);

    const child = fork(CHILD, [], {
      env: { ...process.env, PG_OUTAGE_URL: through.toString() },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (d) => {
      if (stderr.length < 20_000) stderr += d.toString();
    });
    child.stdout?.resume();
    let report: ChildReport | undefined;
    let ready = false;
    child.on("message", (m) => {
      if (m && typeof m === "object" && "ready" in m) ready = true;
      else report = m as ChildReport;
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    let exit: { code: number | null; signal: string | null } | undefined;
    void exited.then((e) => {
      exit = e;
    });

    try {
      while (!ready && !exit) await pause(10);
      await pause(500);
      // Outages of both kinds, while every connection is busy: the port refused (open connections reset), then a
      // server restart as clients see it (every connection reset, new ones accepted).
      for (let round = 0; round < 6 && !exit; round += 1) {
        await proxy.set("refuse");
        await pause(150 + round * 40);
        await proxy.set("pass");
        await pause(300);
        proxy.resetAll();
        await pause(200);
        proxy.resetAll();
        await pause(300);
      }
      await pause(1_000);
      if (!exit) child.send("stop");
      const result = await Promise.race([exited, pause(90_000).then(() => null)]);
      expect(result, "the child did not exit within 90 s").not.toBeNull();
    } finally {
      if (!exit) child.kill("SIGKILL");
    }

    expect({ exit, stderr: stderr.slice(0, 2_000), odd: report?.oddSamples }).toEqual({
      exit: { code: 0, signal: null },
      stderr: "",
      odd: [],
    });
    console.info(
      "pg outage child:",
      JSON.stringify({
        ...report?.counts,
        recovered: report?.recovered,
        codes: report?.codes,
        stalledSamples: report?.stalledSamples,
      }),
    );
    expect({ stalled: report?.stalledSamples, recovered: report?.recovered }).toEqual({
      stalled: [],
      recovered: true,
    });
    // The outage really hit queries in flight, and work succeeded around it.
    expect(report?.counts.failed).toBeGreaterThan(0);
    expect(report?.counts.ok).toBeGreaterThan(100);
  }, 150_000);

  it("never runs a transaction's later statements on the reconnected connection, outside the transaction", async () => {
    const admin = new URL(postgresAdminUrl);
    proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    const through = new URL(postgresAdminUrl);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);
    const table = `pg_generation_${process.pid}_${Date.now()}`;
    const direct = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
    // One connection: once the transaction's socket is reset, the pool reconnects that same connection for the next
    // query, so a statement the transaction sends afterwards would reach a fresh session in autocommit.
    const sql = postgres(through.toString(), { max: 1, idle_timeout: 0, onnotice: () => {} });
    try {
      await direct.unsafe(`create table ${table} (n int)`);
      let afterReset: unknown;
      const transaction = sql
        .begin(async (tx) => {
          await tx.unsafe(`insert into ${table} values (1)`);
          proxy?.resetAll();
          // The pool reconnects the same connection for someone else meanwhile.
          await pause(100);
          await sql`select 1`;
          afterReset = await tx.unsafe(`insert into ${table} values (2)`).then(
            () => "ran",
            (error: { code?: string }) => error.code,
          );
        })
        .then(
          () => "committed",
          (error: { code?: string }) => error.code,
        );
      expect(["ECONNRESET", "CONNECTION_CLOSED"]).toContain(await transaction);
      await pause(200);
      expect(afterReset).toBe("CONNECTION_CLOSED");
      // Neither statement is in the table: the first went with its transaction, the second never ran.
      expect(await direct.unsafe(`select n from ${table} order by n`)).toEqual([]);
      // And the pool serves again.
      expect(await sql`select 2 as n`).toEqual([{ n: 2 }]);
    } finally {
      await direct.unsafe(`drop table if exists ${table}`).catch(() => undefined);
      await sql.end({ timeout: 1 });
      await direct.end({ timeout: 1 });
    }
  }, 30_000);
});

// Under load: a fixed number of calls per path and client at a fixed concurrency, in alternating slices, with the
// CPU the server's process group, PostgreSQL, Redis and the whole run spent meanwhile (from /proc), and, for
// Tollgate's paths, the ledger rows their key got while the slice lasted.
import type { Calls } from "./calls";
import { CLIENTS, type Client } from "./clients";
import { cpuMs, namedCpuMs } from "./cpu";
import { isLedgerPath, type LedgerPath, PATHS, type PerPath, PLAN, perPath, type Target } from "./plan";

export type LoadTotals = {
  latencies: number[];
  /** Wall time of the slices, from the first call sent to the last answer (s). */
  seconds: number;
  serverCpuMs: number;
  postgresMs: number;
  /** redis-server's CPU (NaN when its /proc cannot be read). */
  redisMs: number;
  benchMs: number;
  errors: number;
  /** Ledger rows written while the slices lasted (Tollgate's paths; NaN elsewhere). */
  recordedRows: number;
  /** When each slice began and ended (process.hrtime.bigint(), ns), to pick a profile's samples from them. */
  windows: [bigint, bigint][];
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** PLAN.calls per path and client at PLAN.concurrency, in PLAN.slices slices, every (client, path) pair rotating. */
export async function concurrentSlices(
  calls: Calls,
  targets: PerPath<Target>,
  own: { dbName: string; ownCpuMs: () => number; ledgerRows: (p: LedgerPath) => Promise<number> },
): Promise<Record<Client, PerPath<LoadTotals>>> {
  const pooled = Object.fromEntries(
    CLIENTS.map((c) => [
      c,
      perPath<LoadTotals>(() => ({
        latencies: [],
        seconds: 0,
        serverCpuMs: 0,
        postgresMs: 0,
        redisMs: 0,
        benchMs: 0,
        errors: 0,
        recordedRows: 0,
        windows: [],
      })),
    ]),
  ) as Record<Client, PerPath<LoadTotals>>;
  const pairs = CLIENTS.flatMap((client) => PATHS.map((p) => ({ client, p })));
  const perSlice = Math.ceil(PLAN.calls / PLAN.slices);
  say(
    `concurrent: ${PLAN.slices} slices of ${perSlice} calls per path and client, ${PLAN.concurrency} at a time …`,
  );
  const rows = (p: (typeof PATHS)[number]) =>
    isLedgerPath(p) ? own.ledgerRows(p) : Promise.resolve(Number.NaN);
  for (let slice = 0; slice < PLAN.slices; slice++) {
    for (let j = 0; j < pairs.length; j++) {
      const { client, p } = pairs[(slice + j) % pairs.length]!;
      const totals = pooled[client][p];
      const errorsBefore = calls.errors[p];
      const rows0 = await rows(p);
      const cpu0 = cpuMs(own.dbName, targets[p].pgid);
      const redis0 = namedCpuMs("redis-server");
      const own0 = own.ownCpuMs();
      const t0 = performance.now();
      const began = process.hrtime.bigint();
      let sent = 0;
      await Promise.all(
        Array.from({ length: PLAN.concurrency }, async () => {
          while (sent < perSlice) {
            sent++;
            const ms = await calls.timeOne(p, client);
            if (ms !== null) totals.latencies.push(ms);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      totals.windows.push([began, process.hrtime.bigint()]);
      const cpu1 = cpuMs(own.dbName, targets[p].pgid);
      const redis1 = namedCpuMs("redis-server");
      const rows1 = await rows(p);
      totals.seconds += seconds;
      totals.serverCpuMs += cpu1.group - cpu0.group;
      totals.postgresMs += cpu1.postgres - cpu0.postgres;
      totals.redisMs += redis1 - redis0;
      totals.benchMs += own.ownCpuMs() - own0;
      totals.errors += calls.errors[p] - errorsBefore;
      totals.recordedRows += rows1 - rows0;
    }
  }
  return pooled;
}

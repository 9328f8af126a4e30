// Under load: a fixed number of calls per path at a fixed concurrency, in alternating slices, with the CPU the
// server's process group, PostgreSQL and the whole run spent meanwhile (from /proc), and, for Tollgate's two
// paths, the ledger rows their key got while the slice lasted.
import type { Calls } from "./calls";
import { cpuMs } from "./cpu";
import { type LedgerPath, PATHS, type PerPath, PLAN, perPath, rotated, type Target } from "./plan";

export type LoadTotals = {
  latencies: number[];
  /** Wall time of the slices, from the first call sent to the last answer (s). */
  seconds: number;
  serverCpuMs: number;
  postgresMs: number;
  benchMs: number;
  errors: number;
  /** Ledger rows written while the slices lasted (Tollgate's paths; NaN elsewhere). */
  recordedRows: number;
  /** When each slice began and ended (process.hrtime.bigint(), ns), to pick a profile's samples from them. */
  windows: [bigint, bigint][];
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** PLAN.calls per path at PLAN.concurrency, in PLAN.slices alternating slices. */
export async function concurrentSlices(
  calls: Calls,
  targets: PerPath<Target>,
  own: { dbName: string; ownCpuMs: () => number; ledgerRows: (p: LedgerPath) => Promise<number> },
): Promise<PerPath<LoadTotals>> {
  const pooled = perPath<LoadTotals>(() => ({
    latencies: [],
    seconds: 0,
    serverCpuMs: 0,
    postgresMs: 0,
    benchMs: 0,
    errors: 0,
    recordedRows: 0,
    windows: [],
  }));
  const perSlice = Math.ceil(PLAN.calls / PLAN.slices);
  say(`concurrent: ${PLAN.slices} slices of ${perSlice} calls per path, ${PLAN.concurrency} at a time …`);
  const rows = (p: (typeof PATHS)[number]) =>
    p === "lean" || p === "limited" || p === "next" ? own.ledgerRows(p) : Promise.resolve(Number.NaN);
  for (let slice = 0; slice < PLAN.slices; slice++) {
    for (const p of rotated(PATHS, slice)) {
      const errorsBefore = calls.errors[p];
      const rows0 = await rows(p);
      const cpu0 = cpuMs(own.dbName, targets[p].pgid);
      const own0 = own.ownCpuMs();
      const t0 = performance.now();
      const began = process.hrtime.bigint();
      let sent = 0;
      await Promise.all(
        Array.from({ length: PLAN.concurrency }, async () => {
          while (sent < perSlice) {
            sent++;
            const ms = await calls.timeOne(p);
            if (ms !== null) pooled[p].latencies.push(ms);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      pooled[p].windows.push([began, process.hrtime.bigint()]);
      const cpu1 = cpuMs(own.dbName, targets[p].pgid);
      const rows1 = await rows(p);
      const totals = pooled[p];
      totals.seconds += seconds;
      totals.serverCpuMs += cpu1.group - cpu0.group;
      totals.postgresMs += cpu1.postgres - cpu0.postgres;
      totals.benchMs += own.ownCpuMs() - own0;
      totals.errors += calls.errors[p] - errorsBefore;
      totals.recordedRows += rows1 - rows0;
    }
  }
  return pooled;
}

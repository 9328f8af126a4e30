// The measuring: every path called the same way; sequential rounds, streamed rounds, then the concurrent slices.
import { median } from "../report";
import { Calls } from "./calls";
import { CLIENTS, type Client } from "./clients";
import { concurrentSlices, type LoadTotals } from "./concurrent";
import { cpuMs, machineCpuMs } from "./cpu";
import { type LedgerPath, PATHS, type PerPath, PLAN, perPath, STREAM_PATHS, type Target } from "./plan";
import { lastErrorLine, sleep } from "./processes";
import { type StreamTimes, streamRounds, streamSmokeTest } from "./streams";

export type Measurements = {
  /** Per client: every sequential call's time, and each round's median, per path. */
  sequential: Record<Client, PerPath<number[]>>;
  roundMedians: Record<Client, PerPath<number[]>>;
  streams: Record<(typeof STREAM_PATHS)[number], StreamTimes>;
  pooled: Record<Client, PerPath<LoadTotals>>;
  /** Calls answered correctly on each path over the whole run (both clients, and streamed). */
  ok: PerPath<number>;
  errors: PerPath<number>;
  lastError: string;
  /** Share of one core used outside the benchmark's processes while it measured. */
  elsewherePct: number;
};

export type Own = {
  pgids: number[];
  dbName: string;
  /** Ledger rows so far under the API key of a Tollgate path. */
  ledgerRows: (p: LedgerPath) => Promise<number>;
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Smoke test, warm-up, a wait for a quiet machine, then the sequential and streamed rounds and the slices. */
export async function measure(targets: PerPath<Target>, own: Own): Promise<Measurements> {
  const calls = new Calls(targets);
  // Each path answers once, correctly, before anything is measured (a stream too, where one is measured).
  for (const client of CLIENTS)
    for (const p of PATHS)
      if ((await calls.timeOne(p, client)) === null)
        throw new Error(`smoke test failed (${client} client): ${calls.lastError}`);
  // A path that cannot stream is reported as such; the upstream itself must.
  const streams = await streamSmokeTest(calls, targets);
  if (streams.direct.fails) throw new Error(`the fake upstream cannot stream: ${streams.direct.fails}`);
  for (const p of STREAM_PATHS) {
    if (!streams[p].fails) continue;
    const cause = lastErrorLine(targets[p].logFile);
    if (cause) streams[p].fails += `; its log: ${cause.slice(0, 120)}`;
    say(`${p} cannot stream: ${streams[p].fails}`);
  }
  say("warming up …");
  for (let i = 0; i < PLAN.warmup; i++)
    for (const client of CLIENTS) for (const p of PATHS) await calls.timeOne(p, client);
  await streamRounds(calls, targets, streams, 1, Math.ceil(PLAN.warmup / 10), false);

  // What the machine spends outside this benchmark's processes (another job would skew every figure).
  const ownCpuMs = () => {
    const c = cpuMs(own.dbName, ...own.pgids);
    const self = process.cpuUsage();
    return c.group + (Number.isNaN(c.postgres) ? 0 : c.postgres) + (self.user + self.system) / 1000;
  };
  await waitForQuiet(ownCpuMs);
  const measureStart = { wall: performance.now(), machine: machineCpuMs(), own: ownCpuMs() };
  const { sequential, roundMedians } = await sequentialRounds(calls);
  say("streamed …");
  await streamRounds(calls, targets, streams, PLAN.rounds, PLAN.streamsPerRound);
  const pooled = await concurrentSlices(calls, targets, { ...own, ownCpuMs });

  const elsewhereMs = machineCpuMs() - measureStart.machine - (ownCpuMs() - measureStart.own);
  // Clock-tick rounding can make a quiet machine's figure slightly negative.
  const elsewherePct = Math.max(0, (100 * elsewhereMs) / (performance.now() - measureStart.wall));
  return {
    sequential,
    roundMedians,
    streams,
    pooled,
    ok: calls.ok,
    errors: calls.errors,
    lastError: calls.lastError,
    elsewherePct,
  };
}

/** Waits (up to BENCH_QUIET_WAIT seconds, default 300) for the rest of the machine to use under 15% of a core. */
export async function waitForQuiet(ownCpuMs: () => number): Promise<void> {
  const elsewhere = async (ms: number) => {
    const t = performance.now();
    const m0 = machineCpuMs();
    const o0 = ownCpuMs();
    await sleep(ms);
    return (100 * (machineCpuMs() - m0 - (ownCpuMs() - o0))) / (performance.now() - t);
  };
  const quietBy = Date.now() + Number(process.env.BENCH_QUIET_WAIT ?? 300) * 1000;
  for (let pct = await elsewhere(2000); pct > 15; pct = await elsewhere(2000)) {
    if (Date.now() > quietBy) {
      say(`the machine is still busy (${pct.toFixed(0)}% of a core elsewhere); measuring anyway`);
      break;
    }
    say(`waiting for the machine to quiet down (${pct.toFixed(0)}% of a core used elsewhere)`);
    await sleep(3000);
  }
}

/**
 * `rounds` rounds of `perRound` calls per path and client, every (client, path) pair in turn and the first one
 * rotating each round.
 */
async function sequentialRounds(calls: Calls) {
  const sequential = perClient(() => perPath<number[]>(() => []));
  const roundMedians = perClient(() => perPath<number[]>(() => []));
  const pairs = CLIENTS.flatMap((client) => PATHS.map((p) => ({ client, p })));
  say("sequential …");
  for (let round = 0; round < PLAN.rounds; round++) {
    for (let j = 0; j < pairs.length; j++) {
      const { client, p } = pairs[(round + j) % pairs.length]!;
      const xs: number[] = [];
      for (let i = 0; i < PLAN.perRound; i++) {
        const ms = await calls.timeOne(p, client);
        if (ms !== null) xs.push(ms);
      }
      sequential[client][p].push(...xs);
      roundMedians[client][p].push(median(xs));
    }
  }
  return { sequential, roundMedians };
}

const perClient = <T>(make: () => T) =>
  Object.fromEntries(CLIENTS.map((c) => [c, make()])) as Record<Client, T>;

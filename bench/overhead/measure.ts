// The measuring: every path called the same way, sequential rounds then concurrent slices, CPU read from /proc.
import type OpenAI from "openai";
import { median } from "../report";
import { cpuMs, machineCpuMs } from "./cpu";
import { sleep } from "./processes";

export const PLAN = {
  rounds: 7,
  perRound: 25,
  warmup: 100,
  concurrency: 32,
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  slices: 5,
};

export const PATHS = ["direct", "raw", "lean", "portkey", "bare", "next"] as const;
export type Path = (typeof PATHS)[number];
/** One way of reaching the upstream: the client that calls it, the model it asks for, the process group serving it. */
export type Target = { label: string; client: OpenAI; model: string; pgid: number };
export type PerPath<T> = Record<Path, T>;
export type LoadTotals = {
  latencies: number[];
  serverCpuMs: number;
  postgresMs: number;
  benchMs: number;
  errors: number;
};

export type Measurements = {
  sequential: PerPath<number[]>;
  roundMedians: PerPath<number[]>;
  pooled: PerPath<LoadTotals>;
  ok: PerPath<number>;
  errors: PerPath<number>;
  lastError: string;
  /** Share of one core used outside the benchmark's processes while it measured. */
  elsewherePct: number;
};

const say = (line: string) => process.stderr.write(`${line}\n`);
const perPath = <T>(make: () => T) => Object.fromEntries(PATHS.map((p) => [p, make()])) as PerPath<T>;
const rotated = (i: number) => PATHS.map((_, j) => PATHS[(i + j) % PATHS.length]!);

/** Smoke test, warm-up, a wait for a quiet machine, then the sequential rounds and the concurrent slices. */
export async function measure(
  targets: PerPath<Target>,
  own: { pgids: number[]; dbName: string },
): Promise<Measurements> {
  const calls = new Calls(targets);
  // Each path answers once, correctly, before anything is measured.
  for (const p of PATHS)
    if ((await calls.timeOne(p)) === null) throw new Error(`smoke test failed: ${calls.lastError}`);
  say("warming up …");
  for (let i = 0; i < PLAN.warmup; i++) for (const p of PATHS) await calls.timeOne(p);

  // What the machine spends outside this benchmark's processes (another job would skew every figure).
  const ownCpuMs = () => {
    const c = cpuMs(own.dbName, ...own.pgids);
    const self = process.cpuUsage();
    return c.group + (Number.isNaN(c.postgres) ? 0 : c.postgres) + (self.user + self.system) / 1000;
  };
  await waitForQuiet(ownCpuMs);
  const measureStart = { wall: performance.now(), machine: machineCpuMs(), own: ownCpuMs() };
  const { sequential, roundMedians } = await sequentialRounds(calls);
  const pooled = await concurrentSlices(calls, targets, own.dbName, ownCpuMs);

  const elsewhereMs = machineCpuMs() - measureStart.machine - (ownCpuMs() - measureStart.own);
  // Clock-tick rounding can make a quiet machine's figure slightly negative.
  const elsewherePct = Math.max(0, (100 * elsewhereMs) / (performance.now() - measureStart.wall));
  return {
    sequential,
    roundMedians,
    pooled,
    ok: calls.ok,
    errors: calls.errors,
    lastError: calls.lastError,
    elsewherePct,
  };
}

/** The same chat completion ("Say ok.") on one path, timed; failures are counted, not thrown. */
class Calls {
  readonly ok = perPath(() => 0);
  readonly errors = perPath(() => 0);
  lastError = "";
  constructor(private readonly targets: PerPath<Target>) {}

  async timeOne(p: Path): Promise<number | null> {
    const t = performance.now();
    try {
      const res = await this.targets[p].client.chat.completions.create({
        model: this.targets[p].model,
        messages: [{ role: "user", content: "Say ok." }],
      });
      if (res.choices[0]?.message.content !== "ok")
        throw new Error(`unexpected answer: ${JSON.stringify(res)}`);
      this.ok[p]++;
      return performance.now() - t;
    } catch (error) {
      this.errors[p]++;
      this.lastError = `${p}: ${error instanceof Error ? error.message : String(error)}`;
      return null;
    }
  }
}

/** Waits (up to BENCH_QUIET_WAIT seconds, default 300) for the rest of the machine to use under 15% of a core. */
async function waitForQuiet(ownCpuMs: () => number): Promise<void> {
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

/** 7 rounds of 25 per path, the paths interleaved and the first one rotating, so noise falls on all alike. */
async function sequentialRounds(calls: Calls) {
  const sequential = perPath<number[]>(() => []);
  const roundMedians = perPath<number[]>(() => []);
  say("sequential …");
  for (let round = 0; round < PLAN.rounds; round++) {
    for (const p of rotated(round)) {
      const xs: number[] = [];
      for (let i = 0; i < PLAN.perRound; i++) {
        const ms = await calls.timeOne(p);
        if (ms !== null) xs.push(ms);
      }
      sequential[p].push(...xs);
      roundMedians[p].push(median(xs));
    }
  }
  return { sequential, roundMedians };
}

/** 32 workers, SECONDS per path in SLICES alternating slices, with the server's and PostgreSQL's CPU per slice. */
async function concurrentSlices(
  calls: Calls,
  targets: PerPath<Target>,
  dbName: string,
  ownCpuMs: () => number,
): Promise<PerPath<LoadTotals>> {
  const pooled = perPath<LoadTotals>(() => ({
    latencies: [],
    serverCpuMs: 0,
    postgresMs: 0,
    benchMs: 0,
    errors: 0,
  }));
  say("concurrent …");
  for (let slice = 0; slice < PLAN.slices; slice++) {
    for (const p of rotated(slice)) {
      const errorsBefore = calls.errors[p];
      const cpu0 = cpuMs(dbName, targets[p].pgid);
      const own0 = ownCpuMs();
      const deadline = performance.now() + (PLAN.seconds / PLAN.slices) * 1000;
      await Promise.all(
        Array.from({ length: PLAN.concurrency }, async () => {
          while (performance.now() < deadline) {
            const ms = await calls.timeOne(p);
            if (ms !== null) pooled[p].latencies.push(ms);
          }
        }),
      );
      const cpu1 = cpuMs(dbName, targets[p].pgid);
      pooled[p].serverCpuMs += cpu1.group - cpu0.group;
      pooled[p].postgresMs += cpu1.postgres - cpu0.postgres;
      pooled[p].benchMs += ownCpuMs() - own0;
      pooled[p].errors += calls.errors[p] - errorsBefore;
    }
  }
  return pooled;
}

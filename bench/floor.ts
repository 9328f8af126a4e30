// A quick look at the lean server against the floor, for profiling and for trying a change: only the fake
// upstream, the raw node:http proxy and the lean server (plus, with FLOOR_GOVERNED=1, the governed keys: one on
// the same server with its counters in PostgreSQL, one on a second lean server with its counters in Redis, beside a
// key without limits on that second server), each
// called with both clients (plain fetch, the openai SDK): sequential latency added over direct, then calls under
// load with the server's CPU per call from /proc. Prints a table; writes nothing to BENCHMARKS.md (the full
// comparison is `npm run bench:gateway-overhead`).
//   npx tsx --conditions=react-server bench/floor.ts
// Environment: FLOOR_CALLS (3000 per target and client under load), FLOOR_CONCURRENCY (16), FLOOR_PER_ROUND (25,
// 7 rounds), FLOOR_WARMUP (200), FLOOR_GOVERNED=1, BENCH_DATABASE_URL, BENCH_CPU_PROF=<dir> (the lean server's
// V8 profile, summed over its load slices per client).
import path from "node:path";
import { CLIENTS, type Client, callerOf, type Endpoint } from "./overhead/clients";
import { cpuMs, namedCpuMs } from "./overhead/cpu";
import { BenchDatabase } from "./overhead/database";
import { f } from "./overhead/format";
import { ChildProcesses, waitReady } from "./overhead/processes";
import { profileSection } from "./overhead/profile";
import {
  clearBenchRedis,
  type Server,
  startLean,
  startLeanOnRedis,
  startRaw,
  startUpstream,
  tollgateEnv,
  UPSTREAM_MODEL,
} from "./overhead/servers";
import { median } from "./report";

const count = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const PLAN = {
  calls: count("FLOOR_CALLS", 3000),
  concurrency: count("FLOOR_CONCURRENCY", 16),
  rounds: 7,
  perRound: count("FLOOR_PER_ROUND", 25),
  warmup: count("FLOOR_WARMUP", 200),
  slices: 5,
};
const say = (line: string) => process.stderr.write(`${line}\n`);
const procs = new ChildProcesses();
const database = new BenchDatabase(
  process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
);

type Target = { name: string; server: Server; endpoint: Endpoint; redis?: boolean };
type Figures = {
  seq: number[];
  seconds: number;
  calls: number;
  serverMs: number;
  pgMs: number;
  redisMs: number;
  windows: [bigint, bigint][];
};

async function main() {
  const governed = process.env.FLOOR_GOVERNED === "1";
  const upstream = await startUpstream(procs);
  const { handle, keys } = await database.create();
  await handle.close();
  const env = tollgateEnv(procs, upstream, { url: database.url }, "gateway.config.json", {});
  const lean = await startLean(procs, "lean", env);
  const raw = await startRaw(procs, upstream);
  const leanRedis = governed ? await startLeanOnRedis(procs, upstream, { url: database.url }) : undefined;
  const auth = (secret: string) => () =>
    fetch(`${lean.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
  await waitReady("lean server", lean, auth(keys.lean.secret));
  await waitReady("raw proxy", raw, () => fetch(raw.url));
  if (leanRedis)
    await waitReady("lean server (Redis)", leanRedis, () =>
      fetch(`${leanRedis.url}/v1/models`, { headers: { authorization: `Bearer ${keys.redis.secret}` } }),
    );
  const at = (base: string, apiKey: string, model: string): Endpoint => ({
    baseURL: base,
    apiKey,
    headers: {},
    model,
  });
  const targets: Target[] = [
    { name: "direct", server: upstream, endpoint: at(upstream.url, "bench", UPSTREAM_MODEL) },
    { name: "raw proxy", server: raw, endpoint: at(`${raw.url}/v1`, "bench", "bench") },
    { name: "lean", server: lean, endpoint: at(`${lean.url}/v1`, keys.lean.secret, "bench") },
  ];
  if (leanRedis)
    targets.push(
      { name: "governed (PG)", server: lean, endpoint: at(`${lean.url}/v1`, keys.pg.secret, "bench") },
      {
        name: "lean (Redis server)",
        server: leanRedis,
        endpoint: at(`${leanRedis.url}/v1`, keys.leanRedis.secret, "bench"),
        redis: true,
      },
      {
        name: "governed (Redis)",
        server: leanRedis,
        endpoint: at(`${leanRedis.url}/v1`, keys.redis.secret, "bench"),
        redis: true,
      },
    );

  // Every (client, target) pair is one path; warm-up, sequential rounds and load slices go over all of them,
  // the first one rotating, so neither client gets the server colder or the machine noisier than the other.
  const paths = CLIENTS.flatMap((client) =>
    targets.map((target, t) => ({ client, t, call: callerOf(client, target.endpoint) })),
  );
  const figures: Figures[] = paths.map(() => ({
    seq: [],
    seconds: 0,
    calls: 0,
    serverMs: 0,
    pgMs: 0,
    redisMs: 0,
    windows: [],
  }));
  say("warming up …");
  for (let i = 0; i < PLAN.warmup; i++) for (const p of paths) await p.call();
  say("sequential …");
  for (let round = 0; round < PLAN.rounds; round++)
    for (let j = 0; j < paths.length; j++) {
      const i = (round + j) % paths.length;
      for (let n = 0; n < PLAN.perRound; n++) {
        const t0 = performance.now();
        await paths[i]!.call();
        figures[i]!.seq.push(performance.now() - t0);
      }
    }
  say("under load …");
  const perSlice = Math.ceil(PLAN.calls / PLAN.slices);
  for (let slice = 0; slice < PLAN.slices; slice++)
    for (let j = 0; j < paths.length; j++) {
      const i = (slice + j) % paths.length;
      const pgid = targets[paths[i]!.t]!.server.child.pid!;
      const c0 = cpuMs(database.name, pgid);
      const r0 = namedCpuMs("redis-server");
      const t0 = performance.now();
      const began = process.hrtime.bigint();
      let sent = 0;
      await Promise.all(
        Array.from({ length: PLAN.concurrency }, async () => {
          while (sent < perSlice) {
            sent++;
            await paths[i]!.call();
          }
        }),
      );
      const fig = figures[i]!;
      fig.windows.push([began, process.hrtime.bigint()]);
      fig.seconds += (performance.now() - t0) / 1000;
      const c1 = cpuMs(database.name, pgid);
      fig.serverMs += c1.group - c0.group;
      fig.pgMs += c1.postgres - c0.postgres;
      fig.redisMs += namedCpuMs("redis-server") - r0;
      fig.calls += perSlice;
    }
  const results = new Map<Client, Figures[]>(
    CLIENTS.map((client) => [client, figures.filter((_, i) => paths[i]!.client === client)]),
  );

  const lines = [
    `| client | target | sequential median (ms) | added over direct (ms) | ÷ raw's added | server CPU/call (ms) | ÷ raw's | PostgreSQL CPU/call (ms) | Redis CPU/call (ms) | calls/s |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const [client, figures] of results) {
    const seq = figures.map((x) => median(x.seq));
    const cpu = figures.map((x) => x.serverMs / x.calls);
    const rawAdded = seq[1]! - seq[0]!;
    targets.forEach((t, i) => {
      const x = figures[i]!;
      const added = seq[i]! - seq[0]!;
      lines.push(
        `| ${client} | ${t.name} | ${f(seq[i]!)} | ${i ? f(added) : ""} | ${i > 1 ? f(added / rawAdded, 2) : ""} | ${f(cpu[i]!)} | ${i > 1 ? f(cpu[i]! / cpu[1]!, 2) : ""} | ${f(x.pgMs / x.calls)} | ${f(x.redisMs / x.calls)} | ${f(x.calls / x.seconds, 0)} |`,
      );
    });
  }
  process.stdout.write(`${lines.join("\n")}\n`);

  const profDir = process.env.BENCH_CPU_PROF;
  if (profDir) {
    await procs.stopOne(lean, 30_000);
    for (const [client, figures] of results) {
      process.stdout.write(
        `\n${profileSection(path.resolve(profDir), lean.child.pid!, `lean server, ${client} client`, figures[2]!.windows)}\n`,
      );
      // The governed key (PostgreSQL counters) is served by the same process: its own slices, summed apart.
      if (governed)
        process.stdout.write(
          `\n${profileSection(path.resolve(profDir), lean.child.pid!, `lean server, governed key (PostgreSQL counters), ${client} client`, figures[3]!.windows)}\n`,
        );
    }
  }
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  exitCode = 1;
} finally {
  await procs.stop(process.env.BENCH_CPU_PROF ? 30_000 : 5000);
  await database.drop();
  await clearBenchRedis();
  procs.removeScratch();
}
process.exit(exitCode);

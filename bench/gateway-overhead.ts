// What each way of reaching the fake upstream adds per call, side by side in one run: directly; through a raw
// node:http proxy (bench/raw-proxy.ts, the floor); through Tollgate's lean server (server/gateway.ts) with a key
// without limits, and with a governed key (all six limits, none reached) whose counters are in PostgreSQL (also with
// a template for each end user, the calls naming 50 end users in turn), and
// on a second lean server, in Redis; through Portkey's open-source gateway; through a bare Next app whose one
// route only forwards (bench/bare-next, the baseline for /v1); and through the production Next server's /v1.
// Ledger and audit are on, as always. Non-streamed calls are made with both a plain fetch client and the official
// openai client (bench/overhead/clients.ts): sequential calls, then calls under load (CPU per call, answered and
// recorded per second); streamed calls (first-byte relay time) with raw node:http; then a load run of the lean
// server alone with failures injected (bench/overhead/load-run.ts).
//   npm run bench:gateway-overhead
// Environment (defaults in brackets):
//   BENCH_DATABASE_URL (the local postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_BUILD=1 (always
//   build), BENCH_QUIET_WAIT (300 s);
//   sizes: BENCH_WARMUP (100), BENCH_PER_ROUND (25), BENCH_STREAMS (10 per round), BENCH_CALLS (3000 per path
//   and client under load), BENCH_CONCURRENCY (16), BENCH_STREAM_PAUSE_MS (20: the upstream's pause inside a stream);
//   the load run: BENCH_LOAD=0 (skip it), BENCH_LOAD_CALLS (20000), BENCH_LOAD_CONCURRENCY (64);
//   BENCH_REUSE_DATABASE=<name>: run on that database as it is (a full ledger underneath), and keep it;
//   BENCH_CPU_PROF=<dir>: CPU profiles of the lean and Next servers, the lean server's summed up in the section
//   (BENCH_CPU_PROF_INTERVAL: the sampling interval in µs).
// It creates its own database (tollgate_bench_<pid>) on BENCH_DATABASE_URL, runs `next build` for the product and
// for bench/bare-next when their builds are older than their sources, installs Portkey under the temp directory,
// and kills every process it started, drops the database and deletes its Redis keys at the end, also on failure.
import os from "node:os";
import path from "node:path";
import { BenchDatabase, type BenchKeys, countLedger, rowsOfKey, storedRows } from "./overhead/database";
import { loadRun } from "./overhead/load-run";
import { measure } from "./overhead/measure";
import { END_USERS, type PerPath, type Target } from "./overhead/plan";
import { ChildProcesses, sleep } from "./overhead/processes";
import { profileSection } from "./overhead/profile";
import { type LedgerCheck, reportSection } from "./overhead/report-section";
import {
  clearBenchRedis,
  PORTKEY_VERSION,
  type Server,
  type Servers,
  startServers,
  startUpstream,
  UPSTREAM_MODEL,
} from "./overhead/servers";
import { writeSection } from "./report";

const say = (line: string) => process.stderr.write(`${line}\n`);
const procs = new ChildProcesses();
const database = new BenchDatabase(
  process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
);

let cleaning: Promise<void> | undefined;
/** Stops every process and drops the database; one run of it, whoever asks first (a signal, or the end). */
const cleanup = () =>
  (cleaning ??= (async () => {
    await procs.stop(process.env.BENCH_CPU_PROF ? 30_000 : 5000);
    await database.drop();
    await clearBenchRedis();
    procs.removeScratch();
  })());
process.on("exit", () => procs.killAll("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));

async function main() {
  const machineLoad = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
  const upstream = await startUpstream(procs);
  const { handle, keys } = await database.create();
  const baseline = await countLedger(handle, keys);
  const stored = database.reused ? await storedRows(handle) : undefined;
  const servers = {
    upstream,
    ...(await startServers(procs, upstream, { url: database.url, secret: keys.lean.secret })),
  };
  const targets = pathsThrough(servers, keys);
  const pgids = Object.values(servers).map((s) => s.child.pid!);
  const measured = await measure(targets, {
    pgids,
    dbName: database.name,
    ledgerRows: (p) => rowsOfKey(handle, keys[p]),
  });
  const ledger: LedgerCheck = {
    baseline,
    after: await settledLedger(handle, keys),
    byKey: {
      lean: await rowsOfKey(handle, keys.lean),
      pg: await rowsOfKey(handle, keys.pg),
      endUsers: await rowsOfKey(handle, keys.endUsers),
      guarded: await rowsOfKey(handle, keys.guarded),
      leanRedis: await rowsOfKey(handle, keys.leanRedis),
      redis: await rowsOfKey(handle, keys.redis),
      next: await rowsOfKey(handle, keys.next),
    },
  };
  const load =
    process.env.BENCH_LOAD === "0"
      ? undefined
      : await loadRun(
          procs,
          upstream,
          { url: database.url, name: database.name, handle, key: keys.load },
          pgids,
        );
  await handle.close();
  // The lean server writes its profile when it stops: stop it now, so its summary can go into the section.
  const profDir = process.env.BENCH_CPU_PROF;
  let profile: string | undefined;
  if (profDir) {
    await procs.stopOne(servers.lean, 30_000);
    profile = profileSection(
      path.resolve(profDir),
      servers.lean.child.pid!,
      "Where the lean server's CPU went",
      [...measured.pooled.fetch.lean.windows, ...measured.pooled.openai.lean.windows],
    );
  }
  const body = reportSection(targets, measured, ledger, await database.serverVersion(), {
    load,
    profile,
    machineLoad,
    stored,
  });
  if (measured.elsewherePct > 10)
    say(`warning: other processes used ${measured.elsewherePct.toFixed(0)}% of a core during the run`);
  writeSection("gateway-overhead", body);
  process.stdout.write(body);
}

/** The eleven paths to the same upstream, in the order the report lists them. */
function pathsThrough(servers: Servers, keys: BenchKeys): PerPath<Target> {
  const target = (
    label: string,
    server: Server,
    baseURL: string,
    model: string,
    apiKey = "bench",
    headers: Record<string, string> = {},
  ): Target => ({
    label,
    endpoint: { baseURL, apiKey, headers, model },
    raw: {
      endpoint: new URL(`${baseURL}/chat/completions`),
      headers: { ...headers, authorization: `Bearer ${apiKey}` },
    },
    model,
    pgid: server.child.pid!,
    logFile: server.logFile,
  });
  const { upstream, raw, lean, leanRedis, portkey, next, bareNext } = servers;
  return {
    direct: target("direct", upstream, upstream.url, UPSTREAM_MODEL),
    raw: target("raw node:http proxy (floor)", raw, `${raw.url}/v1`, "bench"),
    lean: target("lean server", lean, `${lean.url}/v1`, "bench", keys.lean.secret),
    pg: target("governed (PostgreSQL counters)", lean, `${lean.url}/v1`, "bench", keys.pg.secret),
    endUsers: {
      ...target(
        `governed + end-user template (${END_USERS} end users)`,
        lean,
        `${lean.url}/v1`,
        "bench",
        keys.endUsers.secret,
      ),
      endpoint: {
        baseURL: `${lean.url}/v1`,
        apiKey: keys.endUsers.secret,
        headers: {},
        model: "bench",
        endUsers: END_USERS,
      },
    },
    guarded: target("guardrails on", lean, `${lean.url}/v1`, "bench", keys.guarded.secret),
    leanRedis: target(
      "lean server with Redis, key without limits",
      leanRedis,
      `${leanRedis.url}/v1`,
      "bench",
      keys.leanRedis.secret,
    ),
    redis: target("governed (Redis counters)", leanRedis, `${leanRedis.url}/v1`, "bench", keys.redis.secret),
    portkey: target(`Portkey ${PORTKEY_VERSION}`, portkey, `${portkey.url}/v1`, UPSTREAM_MODEL, "bench", {
      "x-portkey-provider": "openai",
      "x-portkey-custom-host": upstream.url,
    }),
    bare: target("bare Next route", bareNext, `${bareNext.url}/api/upstream`, UPSTREAM_MODEL),
    next: target("Next /v1", next, `${next.url}/v1`, "bench", keys.next.secret),
  };
}

/** The ledger once its batched writes have stopped moving (up to 15 s). */
async function settledLedger(handle: Parameters<typeof countLedger>[0], keys: BenchKeys) {
  let rows = await countLedger(handle, keys);
  for (let i = 0; i < 30; i++) {
    await sleep(500);
    const again = await countLedger(handle, keys);
    if (again.total === rows.total && again.requestEvents === rows.requestEvents && i >= 3) break;
    rows = again;
  }
  return rows;
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);

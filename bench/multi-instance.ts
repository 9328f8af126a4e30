// Budgets and rate limits across replicas (issue 32's acceptance): four lean servers and the Next app on one
// PostgreSQL database, 4,000 calls at 64 at a time, round robin, under a tenant with a hard daily budget and a key
// with a requests-per-minute limit; mid-run one lean server is killed (kill -9) and the counter store stops
// answering for 5 s. Checks: the settled cost and the ledger's stay within the budget, ≥ 97 % of it is spent before
// the first budget refusal, no minute window passes the rpm limit, and every refusal has the right status and code.
// Run once with the counters in PostgreSQL, once in Redis (REDIS_URL on every server); both results go to
// BENCHMARKS.md; the exit code is 1 when a check fails.
//   npm run bench:multi-instance
// Environment (defaults in brackets):
//   BENCH_DATABASE_URL (the local postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_COUNTERS
//   (postgres,redis), BENCH_BUILD=1 (always build Next); sizes: BENCH_MULTI_CALLS (4000), BENCH_MULTI_CONCURRENCY
//   (64), BENCH_MULTI_LEAN (4 lean servers), BENCH_MULTI_KILL_AT (0.3 of the calls), BENCH_MULTI_PAUSE_AT (0.5),
//   BENCH_MULTI_PAUSE_MS (5000), BENCH_MULTI_BUDGET_SHARE (0.7: the budget buys that share of the calls),
//   BENCH_MULTI_RPM_SHARE (0.8), BENCH_MULTI_INPUT_TOKENS (20) and BENCH_MULTI_OUTPUT_TOKENS (200: also max_tokens),
//   BENCH_MULTI_WARMUP (40 calls per server), BENCH_MULTI_MINUTE_ROOM (50 s).
// Each store's run has its own database (tollgate_bench_multi_<pid>_<store>) and Redis prefix, dropped and deleted
// at its end, also on failure; every process it started is killed.
import { readFileSync } from "node:fs";
import { sendAll, type Target } from "./multi/calls";
import { analyse } from "./multi/checks";
import { startCluster, warmUp } from "./multi/cluster";
import { type CounterBackend, callTag, INPUT_TOKENS, OUTPUT_TOKENS, PLAN } from "./multi/plan";
import { BenchRedis } from "./multi/redis";
import { type BackendResult, multiInstanceSection } from "./multi/report-section";
import { createGovernedTenant, ledgerRows, postgresBudgetCounter } from "./multi/tenant";
import { BenchDatabase } from "./overhead/database";
import { ChildProcesses, sleep } from "./overhead/processes";
import { startUpstream } from "./overhead/servers";
import { writeSection } from "./report";

const say = (line: string) => process.stderr.write(`${line}\n`);
const adminUrl = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379";

/** What the run in progress must undo, whoever asks first (its own end, or a signal). */
let undo: (() => Promise<void>) | undefined;
let stopping: Promise<void> | undefined;
const cleanup = () => (stopping ??= undo ? undo() : Promise.resolve());
/** Set by a signal: the run is being undone, and what it measured so far is not written. */
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => {
    interrupted = true;
    void cleanup().finally(() => process.exit(130));
  });

async function runBackend(backend: CounterBackend, versions: Set<string>): Promise<BackendResult> {
  const procs = new ChildProcesses();
  const database = new BenchDatabase(adminUrl, `tollgate_bench_multi_${process.pid}_${backend}`);
  const redis = backend === "redis" ? new BenchRedis(redisUrl, `tollgate-bench-multi-${process.pid}:`) : null;
  const onExit = () => procs.killAll("SIGKILL");
  process.on("exit", onExit);
  let undone: Promise<void> | undefined;
  undo = () =>
    (undone ??= (async () => {
      await procs.stop(5000);
      await database.drop();
      await redis?.flush().catch((e: unknown) => say(`could not delete the run's Redis keys: ${e}`));
      procs.removeScratch();
      process.off("exit", onExit);
    })());
  try {
    if (redis) versions.add(await redis.version());
    const upstream = await startUpstream(procs, {
      BENCH_USAGE_INPUT: String(INPUT_TOKENS),
      BENCH_USAGE_OUTPUT: String(OUTPUT_TOKENS),
      BENCH_RECORD_ARRIVALS: "1",
    });
    const { handle, keys } = await database.create();
    versions.add(await database.serverVersion());
    const key = await createGovernedTenant(handle);
    const cluster = await startCluster(
      procs,
      upstream,
      backend,
      database.url,
      { url: redisUrl, prefix: redis?.prefix ?? "" },
      keys.lean.secret,
    );
    let lean = 0;
    const targets: Target[] = cluster.servers.map((s) => ({
      name: s.kind === "next" ? "Next" : `lean ${++lean}`,
      url: s.url,
    }));
    say(`${backend}: warming up`);
    await warmUp(targets, keys.lean.secret);
    await startOfWindow();

    const killCall = Math.round(PLAN.calls * PLAN.killAt);
    const pauseCall = Math.round(PLAN.calls * PLAN.pauseAt);
    const victim = cluster.servers[PLAN.killIndex]!;
    const kill = { at: 0, target: PLAN.killIndex };
    say(`${backend}: ${PLAN.calls} calls, ${PLAN.concurrency} at a time …`);
    const started = Date.now();
    const records = await sendAll(targets, key.secret, PLAN, {
      [killCall]: () => {
        kill.at = Date.now();
        process.kill(-victim.child.pid!, "SIGKILL");
      },
      [pauseCall]: () => cluster.store.pause(),
    });
    const seconds = (Date.now() - started) / 1000;
    const arrivals = (await (await fetch(new URL("/arrivals", upstream.url))).json()) as Record<
      string,
      number
    >;
    for (const r of records) r.admittedAt = arrivals[callTag(r.i)] ?? null;
    // The proxy resumes on its own; wait for it, so the servers can write what they hold before they stop.
    for (let i = 0; i < 100 && !cluster.store.window(); i++) await sleep(100);
    // Stopped the way an operator would (SIGTERM: drain, write the ledger batch), before the ledger is read.
    for (const s of cluster.servers) await procs.stopOne(s, 20_000);
    const rows = await ledgerRows(handle, key);
    const counterNano = redis
      ? await redis.budgetCounter(key.tenantId)
      : await postgresBudgetCounter(handle, key);
    await handle.close();
    const analysis = analyse(records, rows, { kill, pause: cluster.store.window() });
    for (const c of analysis.checks) say(`${backend}: ${c.pass ? "pass" : "FAIL"}  ${c.name}: ${c.detail}`);
    return {
      backend,
      analysis,
      seconds,
      servers: targets.map((t) => t.name),
      kill: { call: killCall, server: targets[PLAN.killIndex]!.name },
      pause: { call: pauseCall, window: cluster.store.window() },
      counterNano,
      serverErrors: errorLines(cluster.servers.map((s) => s.logFile)),
      startedAt: started,
    };
  } catch (error) {
    say(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return { backend, error: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  } finally {
    await undo();
    undo = undefined;
  }
}

/**
 * Waits for the top of the next UTC minute unless PLAN.minuteRoomSeconds are left in this one, so the run's calls
 * fall in one window of the rate limit (or as few as its length allows).
 */
async function startOfWindow(): Promise<void> {
  const left = 60 - (Date.now() % 60_000) / 1000;
  if (left >= PLAN.minuteRoomSeconds) return;
  say(`waiting ${left.toFixed(0)} s for the next minute window`);
  await sleep(left * 1000 + 250);
}

/** The error lines (pino level ≥ 50) in the servers' logs, counted by message. */
function errorLines(files: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of files) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        if ((entry.level ?? 0) >= 50) counts[entry.msg ?? "?"] = (counts[entry.msg ?? "?"] ?? 0) + 1;
      } catch {}
    }
  }
  return counts;
}

let exitCode = 0;
try {
  const versions = new Set<string>();
  const results: BackendResult[] = [];
  for (const backend of PLAN.backends) {
    if (!interrupted) results.push(await runBackend(backend, versions));
  }
  if (interrupted) await new Promise(() => {}); // the signal's handler exits once everything is undone
  const body = multiInstanceSection(results, [...versions].join(" · "));
  writeSection("multi-instance", body);
  process.stdout.write(body);
  if (results.some((r) => r.error || !r.analysis || r.analysis.checks.some((c) => !c.pass))) exitCode = 1;
} catch (error) {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);

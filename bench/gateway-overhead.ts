// What each way of reaching the fake upstream adds per request, side by side in one run, all called with the
// official `openai` client: directly; through a raw node:http proxy (bench/raw-proxy.ts, the floor); through
// Tollgate's lean server (server/gateway.ts); through the
// production Next server's /v1; through a bare Next app whose one route only forwards (bench/bare-next, the
// baseline for /v1); and through Portkey's open-source gateway. Ledger and audit are on, as always.
//   npm run bench:gateway-overhead
// Environment: BENCH_SECONDS (10), BENCH_DATABASE_URL, BENCH_BUILD=1 (always build), BENCH_QUIET_WAIT (300 s),
// BENCH_CPU_PROF=<dir> (CPU profiles of the lean and Next servers, for diagnosis).
// It creates its own database (tollgate_bench_<pid>) on BENCH_DATABASE_URL (default: the local postgres), runs
// `next build` for the product and for bench/bare-next when their builds are older than their sources, installs
// Portkey under the temp directory, and kills every process it started and drops the database at the end, also
// on failure.
import OpenAI from "openai";
import { BenchDatabase, countLedger } from "./overhead/database";
import { measure, type PerPath, type Target } from "./overhead/measure";
import { ChildProcesses, sleep } from "./overhead/processes";
import { type LedgerCheck, reportSection } from "./overhead/report-section";
import {
  PORTKEY_VERSION,
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
    procs.removeScratch();
  })());
process.on("exit", () => procs.killAll("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));

async function main() {
  const upstream = await startUpstream(procs);
  const { handle, secret } = await database.create();
  const baseline = await countLedger(handle);
  const servers = { upstream, ...(await startServers(procs, upstream, { url: database.url, secret })) };
  const targets = pathsThrough(servers, secret);
  const measured = await measure(targets, {
    pgids: Object.values(servers).map((s) => s.child.pid!),
    dbName: database.name,
  });
  const ledger: LedgerCheck = { baseline, after: await settledLedger(handle) };
  await handle.close();
  const body = reportSection(targets, measured, ledger, await database.serverVersion());
  if (measured.elsewherePct > 10)
    say(`warning: other processes used ${measured.elsewherePct.toFixed(0)}% of a core during the run`);
  writeSection("gateway-overhead", body);
  process.stdout.write(body);
}

/** The six paths to the same upstream, in the order the report lists them. */
function pathsThrough(servers: Servers, secret: string): PerPath<Target> {
  const client = (baseURL: string, apiKey = "bench", defaultHeaders?: Record<string, string>) =>
    new OpenAI({ apiKey, baseURL, maxRetries: 0, defaultHeaders });
  const { upstream, lean, raw, portkey, next, bareNext } = servers;
  return {
    direct: {
      label: "direct",
      client: client(upstream.url),
      model: UPSTREAM_MODEL,
      pgid: upstream.child.pid!,
    },
    raw: {
      label: "raw node:http proxy (floor)",
      client: client(`${raw.url}/v1`),
      model: "bench",
      pgid: raw.child.pid!,
    },
    lean: {
      label: "lean server",
      client: client(`${lean.url}/v1`, secret),
      model: "bench",
      pgid: lean.child.pid!,
    },
    portkey: {
      label: `Portkey ${PORTKEY_VERSION}`,
      client: client(`${portkey.url}/v1`, "bench", {
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": upstream.url,
      }),
      model: UPSTREAM_MODEL,
      pgid: portkey.child.pid!,
    },
    bare: {
      label: "bare Next route",
      client: client(`${bareNext.url}/api/upstream`),
      model: UPSTREAM_MODEL,
      pgid: bareNext.child.pid!,
    },
    next: {
      label: "Next /v1",
      client: client(`${next.url}/v1`, secret),
      model: "bench",
      pgid: next.child.pid!,
    },
  };
}

/** The ledger once its batched writes have stopped moving (up to 15 s). */
async function settledLedger(handle: Parameters<typeof countLedger>[0]) {
  let rows = await countLedger(handle);
  for (let i = 0; i < 30; i++) {
    await sleep(500);
    const again = await countLedger(handle);
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

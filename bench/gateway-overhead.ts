// What each way of reaching the fake upstream adds per request, side by side in one run, all called with the
// official `openai` client: directly; through Tollgate's lean server (scripts/gateway-server.ts); through the
// production Next server's /v1; through a bare Next route that only forwards (app/api/bench/upstream, the
// baseline for /v1); and through Portkey's open-source gateway. Ledger and audit are on, as always.
//   npm run bench:gateway-overhead
// Environment: BENCH_SECONDS (10), BENCH_DATABASE_URL, BENCH_BUILD=1 (always build), BENCH_QUIET_WAIT (300 s),
// BENCH_CPU_PROF=<dir> (CPU profiles of the lean and Next servers, for diagnosis).
// It creates its own database (tollgate_bench_<pid>) on BENCH_DATABASE_URL (default: the local postgres), runs
// `next build` when .next is older than the sources, installs Portkey under the temp directory, and kills every
// process it started and drops the database at the end, also on failure.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import OpenAI from "openai";
import { VERSION as OPENAI_VERSION } from "openai/version";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { prepareDatabase } from "@/db/migrate";
import { appUser, tenant } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { seedDemoData } from "@/lib/demo";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { machine, median, quantile, writeSection } from "./report";

const ROUNDS = 7;
const PER_ROUND = 25;
const WARMUP = 100;
const CONCURRENCY = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SLICES = 5;
const PORTKEY_VERSION = "1.15.2";
const adminUrl = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `tollgate_bench_${process.pid}`;
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
const say = (line: string) => process.stderr.write(`${line}\n`);

// ---- processes: each in its own group, killed (with anything it forked) on every way out ----
const tmp = mkdtempSync(path.join(os.tmpdir(), "tollgate-gateway-overhead-"));
const children: ChildProcess[] = [];
function start(name: string, cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }) {
  const logFile = path.join(tmp, `${name}.log`);
  const out = openSync(logFile, "a");
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ["ignore", out, out] });
  closeSync(out);
  children.push(child);
  return { child, logFile };
}
const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
function killAll(signal: NodeJS.Signals) {
  for (const c of children)
    if (c.pid && alive(c))
      try {
        process.kill(-c.pid, signal);
      } catch {}
}
let dbCreated = false;
let cleaning: Promise<void> | undefined;
/** Stops every process and drops the database; one run of it, whoever asks first (a signal, or the end). */
const cleanup = () => (cleaning ??= stopEverything());
async function stopEverything() {
  killAll("SIGTERM");
  const deadline = Date.now() + (process.env.BENCH_CPU_PROF ? 30_000 : 5000);
  while (children.some(alive) && Date.now() < deadline) await sleep(100);
  killAll("SIGKILL");
  if (dbCreated) {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch((e) => say(String(e)));
    await admin.end();
  }
  rmSync(tmp, { recursive: true, force: true });
}
process.on("exit", () => killAll("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}
const tail = (file: string) => readFileSync(file, "utf8").split("\n").slice(-30).join("\n");
/** Waits until `check` answers ok; fails at once if the process dies, with the end of its log. */
async function waitReady(
  name: string,
  proc: { child: ChildProcess; logFile: string },
  check: () => Promise<Response>,
) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (!alive(proc.child))
      throw new Error(`${name} exited (${proc.child.exitCode}):\n${tail(proc.logFile)}`);
    try {
      if ((await check()).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${name} not ready after 120 s:\n${tail(proc.logFile)}`);
    await sleep(250);
  }
}
async function run(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  const proc = start(name, cmd, args, { env });
  const code = await new Promise<number | null>((r) => proc.child.once("exit", r));
  if (code !== 0) throw new Error(`${name} failed (${code}):\n${tail(proc.logFile)}`);
}

// ---- CPU accounting from /proc (Linux): process groups, the PostgreSQL server, and the whole machine ----
const clockTick = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;
  } catch {
    return 100;
  }
})();
/** CPU time so far (ms) of the processes in the groups `pgids`, and of the local PostgreSQL server's work for this run. */
function cpuMs(...pgids: number[]): { group: number; postgres: number } {
  let group = 0;
  let pg = 0;
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const ticks = Number(f[11]) + Number(f[12]);
        if (pgids.includes(Number(f[2]))) group += ticks;
        if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) === "postgres") {
          // The server's own processes (WAL writer, checkpointer, …) and the backends of this run's database,
          // not another database's backends.
          const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          if (!/\(\d+\)|\[local\]/.test(cmd) || cmd.includes(` ${dbName} `)) pg += ticks;
        }
      } catch {}
    }
  } catch {
    return { group: Number.NaN, postgres: Number.NaN };
  }
  return { group: (group * 1000) / clockTick, postgres: pg ? (pg * 1000) / clockTick : Number.NaN };
}
/** The CPU time (ms) the machine has charged to processes so far (user + nice + system). */
function machineCpuMs(): number {
  try {
    const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return ((v[0]! + v[1]! + v[2]!) * 1000) / clockTick;
  } catch {
    return Number.NaN;
  }
}

async function main() {
  // ---- the fake upstream ----
  const upstream = start("upstream", process.execPath, ["--import", "tsx", "bench/fake-upstream.ts"], {});
  const upstreamUrl = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const line = readFileSync(upstream.logFile, "utf8").split("\n")[0];
      if (line?.startsWith("http")) {
        clearInterval(t);
        resolve(line.trim());
      } else if (!alive(upstream.child)) {
        clearInterval(t);
        reject(new Error(`fake upstream exited:\n${tail(upstream.logFile)}`));
      }
    }, 50);
  });

  // ---- the database: fresh, migrated, demo seed (no sample history), and a tenant API key ----
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  dbCreated = true;
  await admin.unsafe(`create database ${dbName}`);
  await admin.end();
  const handle = await openDatabase({ kind: "postgres", url: dbUrl.toString(), max: 2 });
  await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
  const db = handle.db;
  const [acme] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "acme"));
  const [user] = await db
    .select({ id: appUser.id })
    .from(appUser)
    .where(eq(appUser.email, "admin@acme.test"));
  const { secret } = await createApiKey(db, { tenantId: acme!.id, name: "benchmark", createdBy: user!.id });
  const countRows = async () => {
    const rows = await db.execute<{ status: string; n: number }>(
      sql`select status, count(*)::int as n from sys_agent_turn where source = 'api' group by status`,
    );
    const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as {
      status: string;
      n: number;
    }[];
    const audit = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from sys_agent_audit a join sys_agent_turn t on t.id = a.turn_id where t.source = 'api' and a.type = 'request'`,
    );
    const a = (Array.isArray(audit) ? audit : (audit as { rows: unknown[] }).rows) as { n: number }[];
    return {
      total: list.reduce((s, r) => s + r.n, 0),
      byStatus: Object.fromEntries(list.map((r) => [r.status, r.n])),
      requestEvents: a[0]?.n ?? 0,
    };
  };
  const baseline = await countRows();

  // ---- the gateway config both Tollgate servers run on ----
  const configFile = path.join(tmp, "gateway.config.json");
  const config = {
    providers: { upstream: { type: "openai", baseUrl: upstreamUrl, apiKeyEnv: "BENCH_UPSTREAM_KEY" } },
    models: { bench: { candidates: [{ provider: "upstream", model: "gpt-4o-mini" }] } },
  };
  parseGatewayConfig(config, configFile, { BENCH_UPSTREAM_KEY: "bench" });
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    GATEWAY_CONFIG: configFile,
    BENCH_UPSTREAM_KEY: "bench",
    SEED_SAMPLE_TURNS: "0",
  };
  const authed = (base: string) => () =>
    fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });

  // ---- the lean server ----
  const leanPort = await freePort();
  // BENCH_CPU_PROF=<dir>: the lean and Next servers write V8 CPU profiles there when they stop (diagnosis only).
  const profDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : "";
  const prof = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  const lean = start("lean", process.execPath, [...prof, "--import", "tsx", "server/gateway.ts"], {
    env: { ...serverEnv, GATEWAY_PORT: String(leanPort) },
  });
  const leanUrl = `http://127.0.0.1:${leanPort}`;

  // ---- the bare Node proxy: the gateway behind node:http, nothing else (the floor for the lean server) ----
  const proxyPort = await freePort();
  const proxy = start(
    "proxy",
    process.execPath,
    ["--import", "tsx", "bench/bare-proxy.ts", upstreamUrl, String(proxyPort)],
    {
      env: serverEnv,
    },
  );
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;

  // ---- Portkey, installed once under the temp directory (not the project) ----
  const portkeyDir = path.join(os.tmpdir(), `tollgate-bench-portkey-${PORTKEY_VERSION}`);
  const portkeyMain = path.join(portkeyDir, "node_modules/@portkey-ai/gateway/build/start-server.js");
  if (!existsSync(portkeyMain)) {
    say(`installing @portkey-ai/gateway@${PORTKEY_VERSION} under ${portkeyDir}`);
    mkdirSync(portkeyDir, { recursive: true });
    await run(
      "npm-install-portkey",
      "npm",
      [
        "install",
        "--prefix",
        portkeyDir,
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        `@portkey-ai/gateway@${PORTKEY_VERSION}`,
      ],
      process.env,
    );
  }
  const portkeyPort = await freePort();
  const portkey = start("portkey", process.execPath, [portkeyMain, "--headless", `--port=${portkeyPort}`], {
    cwd: portkeyDir,
  });
  const portkeyUrl = `http://127.0.0.1:${portkeyPort}`;

  // ---- Next: build when .next is older than the sources, then `next start` with the bench routes on ----
  const nextBin = path.join("node_modules", "next", "dist", "bin", "next");
  const built = (() => {
    try {
      return statSync(".next/BUILD_ID").mtimeMs;
    } catch {
      return 0;
    }
  })();
  const newest = (p: string): number => {
    if (!existsSync(p)) return 0;
    const s = statSync(p);
    if (!s.isDirectory()) return s.mtimeMs;
    return Math.max(s.mtimeMs, ...readdirSync(p).map((e) => newest(path.join(p, e))));
  };
  const sources = ["app", "components", "lib", "db", "schemas", "public", "proxy.ts", "instrumentation.ts"];
  const stale = Math.max(...[...sources, "next.config.mjs", "package-lock.json"].map(newest)) > built;
  if (process.env.BENCH_BUILD === "1" || stale) {
    say("next build …");
    // Another build of this checkout holds Next's build lock: wait for it (up to 10 min), then build.
    for (let attempt = 1; ; attempt++) {
      try {
        await run(`next-build-${attempt}`, process.execPath, [nextBin, "build"], process.env);
        break;
      } catch (error) {
        if (attempt >= 40 || !String(error).includes("Another next build process is already running"))
          throw error;
        say("another next build is running here; waiting for it");
        await sleep(15_000);
      }
    }
  }
  const nextPort = await freePort();
  const next = start(
    "next",
    process.execPath,
    [...prof, nextBin, "start", "-p", String(nextPort), "-H", "127.0.0.1"],
    {
      env: { ...serverEnv, TOLLGATE_BENCH_ROUTES: "1", TOLLGATE_BENCH_UPSTREAM: upstreamUrl },
    },
  );
  const nextUrl = `http://127.0.0.1:${nextPort}`;

  await waitReady("lean server", lean, authed(leanUrl));
  await waitReady("next start", next, authed(nextUrl));
  await waitReady("portkey", portkey, () => fetch(portkeyUrl));
  await waitReady("bare proxy", proxy, () => fetch(proxyUrl));
  say("all servers ready");

  // ---- the five paths ----
  const client = (baseURL: string, apiKey = "bench", defaultHeaders?: Record<string, string>) =>
    new OpenAI({ apiKey, baseURL, maxRetries: 0, defaultHeaders });
  const paths = {
    direct: { label: "direct", client: client(upstreamUrl), model: "gpt-4o-mini", pgid: upstream.child.pid! },
    lean: {
      label: "lean server",
      client: client(`${leanUrl}/v1`, secret),
      model: "bench",
      pgid: lean.child.pid!,
    },
    proxy: {
      label: "bare Node proxy",
      client: client(`${proxyUrl}/v1`),
      model: "bench",
      pgid: proxy.child.pid!,
    },
    portkey: {
      label: `Portkey ${PORTKEY_VERSION}`,
      client: client(`${portkeyUrl}/v1`, "bench", {
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": upstreamUrl,
      }),
      model: "gpt-4o-mini",
      pgid: portkey.child.pid!,
    },
    bare: {
      label: "bare Next route",
      client: client(`${nextUrl}/api/bench/upstream`),
      model: "gpt-4o-mini",
      pgid: next.child.pid!,
    },
    next: {
      label: "Next /v1",
      client: client(`${nextUrl}/v1`, secret),
      model: "bench",
      pgid: next.child.pid!,
    },
  };
  type Path = keyof typeof paths;
  const order = Object.keys(paths) as Path[];
  const rotated = (i: number) => order.map((_, j) => order[(i + j) % order.length]!);
  const ok: Record<Path, number> = { direct: 0, lean: 0, proxy: 0, portkey: 0, bare: 0, next: 0 };
  const errors: Record<Path, number> = { direct: 0, lean: 0, proxy: 0, portkey: 0, bare: 0, next: 0 };
  let lastError = "";

  async function timeOne(p: Path): Promise<number | null> {
    const t = performance.now();
    try {
      const res = await paths[p].client.chat.completions.create({
        model: paths[p].model,
        messages: [{ role: "user", content: "Say ok." }],
      });
      if (res.choices[0]?.message.content !== "ok")
        throw new Error(`unexpected answer: ${JSON.stringify(res)}`);
      ok[p]++;
      return performance.now() - t;
    } catch (error) {
      errors[p]++;
      lastError = `${p}: ${error instanceof Error ? error.message : String(error)}`;
      return null;
    }
  }

  // Each path answers once, correctly, before anything is measured.
  for (const p of order) if ((await timeOne(p)) === null) throw new Error(`smoke test failed: ${lastError}`);
  say("warming up …");
  for (let i = 0; i < WARMUP; i++) for (const p of order) await timeOne(p);

  // ---- sequential: 7 rounds of 25 per path, the paths interleaved and the first one rotating ----
  const sequential: Record<Path, number[]> = {
    direct: [],
    lean: [],
    proxy: [],
    portkey: [],
    bare: [],
    next: [],
  };
  const roundMedians: Record<Path, number[]> = {
    direct: [],
    lean: [],
    proxy: [],
    portkey: [],
    bare: [],
    next: [],
  };
  // What the machine spends outside this benchmark's processes (another job would skew every figure).
  const ownPgids = [upstream, lean, proxy, portkey, next].map((x) => x.child.pid!);
  const ownCpuMs = () => {
    const c = cpuMs(...ownPgids);
    const self = process.cpuUsage();
    return c.group + (Number.isNaN(c.postgres) ? 0 : c.postgres) + (self.user + self.system) / 1000;
  };
  // Waits (up to BENCH_QUIET_WAIT seconds, default 300) for the rest of the machine to use under 15% of a core.
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
  const measureStart = { wall: performance.now(), machine: machineCpuMs(), own: ownCpuMs() };
  say("sequential …");
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of rotated(round)) {
      const xs: number[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const ms = await timeOne(p);
        if (ms !== null) xs.push(ms);
      }
      sequential[p].push(...xs);
      roundMedians[p].push(median(xs));
    }
  }

  // ---- concurrent: 32 workers, SECONDS per path in SLICES alternating slices ----
  const pooled = Object.fromEntries(
    order.map((p) => [
      p,
      { latencies: [] as number[], serverCpuMs: 0, postgresMs: 0, benchMs: 0, errors: 0 },
    ]),
  ) as Record<
    Path,
    { latencies: number[]; serverCpuMs: number; postgresMs: number; benchMs: number; errors: number }
  >;
  say("concurrent …");
  for (let slice = 0; slice < SLICES; slice++) {
    for (const p of rotated(slice)) {
      const errorsBefore = errors[p];
      const cpu0 = cpuMs(paths[p].pgid);
      const own0 = ownCpuMs();
      const deadline = performance.now() + (SECONDS / SLICES) * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < deadline) {
            const ms = await timeOne(p);
            if (ms !== null) pooled[p].latencies.push(ms);
          }
        }),
      );
      const cpu1 = cpuMs(paths[p].pgid);
      pooled[p].serverCpuMs += cpu1.group - cpu0.group;
      pooled[p].postgresMs += cpu1.postgres - cpu0.postgres;
      pooled[p].benchMs += ownCpuMs() - own0;
      pooled[p].errors += errors[p] - errorsBefore;
    }
  }

  const elsewhereMs = machineCpuMs() - measureStart.machine - (ownCpuMs() - measureStart.own);
  // Clock-tick rounding can make a quiet machine's figure slightly negative.
  const elsewherePct = Math.max(0, (100 * elsewhereMs) / (performance.now() - measureStart.wall));

  // ---- the ledger: one row per answered /v1 request (lean + Next), once the writes have settled ----
  let rows = await countRows();
  for (let i = 0; i < 30; i++) {
    await sleep(500);
    const again = await countRows();
    if (again.total === rows.total && again.requestEvents === rows.requestEvents && i >= 3) break;
    rows = again;
  }
  const answered = ok.lean + ok.next;
  const recorded = rows.total - baseline.total;
  const requestEvents = rows.requestEvents - baseline.requestEvents;
  await handle.close();

  // ---- report ----
  const f = (n: number, d = 3) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
  const int = (n: number) => Math.round(n).toLocaleString("en-US");
  const seq = Object.fromEntries(order.map((p) => [p, median(sequential[p])])) as Record<Path, number>;
  const roundDiff = (a: Path, b: Path) => median(roundMedians[a].map((x, i) => x - roundMedians[b][i]!));
  const load = Object.fromEntries(
    order.map((p) => {
      const x = pooled[p];
      const n = x.latencies.length;
      return [
        p,
        {
          perSecond: n / SECONDS,
          p50: median(x.latencies),
          p95: quantile(x.latencies, 0.95),
          serverCpu: x.serverCpuMs / n,
          postgresCpu: x.postgresMs / n,
          benchCpu: x.benchMs / n,
          errors: x.errors,
        },
      ];
    }),
  ) as Record<
    Path,
    {
      perSecond: number;
      p50: number;
      p95: number;
      serverCpu: number;
      postgresCpu: number;
      benchCpu: number;
      errors: number;
    }
  >;
  const row = (title: string, cell: (p: Path) => string) => `| ${title} | ${order.map(cell).join(" | ")} |`;
  const leanAdded = seq.lean - seq.direct;
  const nextAdded = seq.next - seq.bare;
  const rpsRatio = load.lean.perSecond / load.portkey.perSecond;
  const verdict = (pass: boolean) => (pass ? "pass" : "**MISS**");
  const ledgerLine =
    recorded === answered && (rows.byStatus.success ?? 0) - (baseline.byStatus.success ?? 0) === answered
      ? `${int(recorded)} ledger rows (source \`api\`, all \`success\`) for ${int(answered)} requests answered 200 by the lean server and Next /v1: **one per request, none lost**.`
      : `**${int(recorded)} ledger rows for ${int(answered)} requests answered 200** by the lean server and Next /v1 (difference ${int(recorded - answered)}; by status: ${JSON.stringify(rows.byStatus)}).`;
  const errorTotal = order.reduce((s, p) => s + errors[p], 0);

  const body = `
## Gateway overhead: the servers, side by side (bench/gateway-overhead.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${await pgVersion()}

One process makes the same non-streamed chat completion ("Say ok.") with the official \`openai\` client (${OPENAI_VERSION}),
to the fake upstream (\`bench/fake-upstream.ts\`, its own process) directly and through five servers, each in its own process on
127.0.0.1: Tollgate's lean server (\`scripts/gateway-server.ts\`), a bare Node proxy (\`bench/bare-proxy.ts\`: node:http, the
same request adapter and \`Gateway.chat\`, no key check, no pipeline, no ledger: the floor under the lean server), the production Next server (\`next start\`) at \`/v1\`, a bare
Next route (\`app/api/bench/upstream\`, on only with \`TOLLGATE_BENCH_ROUTES=1\`) that just forwards the call (the baseline for
\`/v1\`: same framework, no auth, no ledger), and Portkey's gateway ${PORTKEY_VERSION} (\`--headless\`, \`x-portkey-provider: openai\` with
the fake as custom host). Both Tollgate paths authenticate a tenant API key and write the ledger row and its audit event to
PostgreSQL (a fresh database, demo seed) on every request, as they always do.

| | ${order.map((p) => paths[p].label).join(" | ")} |
| --- | ${order.map(() => "---").join(" | ")} |
${row(`sequential, median of ${ROUNDS}×${PER_ROUND} requests (ms)`, (p) => f(seq[p]))}
${row("added over direct (ms)", (p) => (p === "direct" ? "" : p === "lean" ? `**${f(seq[p] - seq.direct)}**` : f(seq[p] - seq.direct)))}
${row("added over the bare Node proxy (ms): the lean server's own work", (p) => (p === "lean" ? f(seq.lean - seq.proxy) : ""))}
${row("added over the bare Next route (ms)", (p) => (p === "next" ? `**${f(nextAdded)}**` : ""))}
${row(`median of the ${ROUNDS} per-round differences (ms; Next /v1: over the bare route)`, (p) => (p === "lean" || p === "portkey" || p === "bare" || p === "proxy" ? f(roundDiff(p, "direct")) : p === "next" ? f(roundDiff("next", "bare")) : ""))}
${row(`${CONCURRENCY} concurrent, ${SECONDS} s each in ${SLICES} alternating slices: requests/s`, (p) => (p === "lean" || p === "portkey" ? `**${f(load[p].perSecond, 0)}**` : f(load[p].perSecond, 0)))}
${row(`${CONCURRENCY} concurrent: median latency (ms)`, (p) => f(load[p].p50, 2))}
${row(`${CONCURRENCY} concurrent: p95 latency (ms)`, (p) => f(load[p].p95, 2))}
${row("server process CPU per request under load (ms)", (p) => f(load[p].serverCpu))}
${row("server process under load: share of one core", (p) => `${f((load[p].serverCpu * load[p].perSecond) / 10, 0)}%`)}
${row("PostgreSQL CPU per request under load (ms)", (p) => f(load[p].postgresCpu))}
${row("all processes of the run (client, upstream, server, PostgreSQL): CPU per request (ms)", (p) => f(load[p].benchCpu))}
${row("failed requests (whole run)", (p) => String(errors[p]))}

Targets:
- lean server adds at most 1 ms (sequential median) over direct: ${f(leanAdded)} ms, ${verdict(leanAdded <= 1)}
- lean server serves at least 3× Portkey's requests per second: ${f(rpsRatio, 2)}×, ${verdict(rpsRatio >= 3)}
- Next \`/v1\` adds at most 1 ms over the bare Next route: ${f(nextAdded)} ms, ${verdict(nextAdded <= 1)}

Ledger: ${ledgerLine} ${int(requestEvents)} \`request\` audit events.${errorTotal ? ` Last error: \`${lastError.slice(0, 200)}\`.` : ""}

Method: ${WARMUP} warm-up requests per path, interleaved; then ${ROUNDS} rounds in which every path makes ${PER_ROUND} requests one
after another, the first path rotating each round, so machine noise falls on all alike. Under load, ${CONCURRENCY} workers
call one path at a time for ${SECONDS / SLICES} s, the paths alternating, ${SLICES} slices each. CPU times are read from \`/proc\`
during those slices: the server's process group, PostgreSQL's processes for this database (backends, WAL writer,
checkpointer), and all of the run's processes together. Everything, the client, the upstream, the servers and PostgreSQL,
shares the ${os.cpus().length} cores, so requests per second follow the run's total CPU per request rather than one server's ceiling.
The run waits for the rest of the machine to be quiet before it measures; while it measured, processes outside the benchmark used
${f(elsewherePct, 0)}% of one core on average${elsewherePct > 10 ? " (**the machine was not quiet: the figures are skewed**)" : ""}.
`;
  if (elsewherePct > 10) say(`warning: other processes used ${f(elsewherePct, 0)}% of a core during the run`);
  writeSection("gateway-overhead", body);
  process.stdout.write(body);
}

async function pgVersion(): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [r] = await admin<{ v: string }[]>`select split_part(version(), ' on ', 1) as v`;
    return r?.v ?? "";
  } finally {
    await admin.end();
  }
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

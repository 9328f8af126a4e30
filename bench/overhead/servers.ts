// Every server the run measures, started in its own process: the fake upstream, Tollgate's lean server, the
// raw node:http proxy (the floor), Portkey, the product's Next app (`next start`) and the bench's bare Next app.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { alive, type ChildProcesses, freePort, type Started, sleep, tail, waitReady } from "./processes";

export const PORTKEY_VERSION = "1.15.2";
const NEXT_BIN = path.join("node_modules", "next", "dist", "bin", "next");
const BARE_NEXT_DIR = path.join("bench", "bare-next");
/** The model the fake upstream is asked for behind every proxy (the alias "bench" on Tollgate's servers). */
export const UPSTREAM_MODEL = "gpt-4o-mini";

export type Server = Started & { url: string };
export type Servers = {
  upstream: Server;
  lean: Server;
  /** A second lean server, its counters in Redis (REDIS_URL, the run's own REDIS_PREFIX). */
  leanRedis: Server;
  raw: Server;
  portkey: Server;
  next: Server;
  bareNext: Server;
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The fake upstream, in its own process (`env` adds to this one's: BENCH_USAGE_*, BENCH_STREAM_PAUSE_MS);
 * resolves with its base URL (ending in /v1) once it prints it.
 */
export async function startUpstream(
  procs: ChildProcesses,
  env: Record<string, string> = {},
): Promise<Server> {
  const upstream = procs.start("upstream", process.execPath, ["--import", "tsx", "bench/fake-upstream.ts"], {
    env: { ...process.env, ...env },
  });
  const url = await new Promise<string>((resolve, reject) => {
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
  return { ...upstream, url };
}

/** Starts the six servers in front of the upstream and waits until each answers. */
export async function startServers(
  procs: ChildProcesses,
  upstream: Server,
  database: { url: string; secret: string },
): Promise<Omit<Servers, "upstream">> {
  const serverEnv = tollgateEnv(procs, upstream, database, "gateway.config.json", {});
  const lean = await startLean(procs, "lean", serverEnv);
  const leanRedis = await startLeanOnRedis(procs, upstream, database);

  const raw = await startRaw(procs, upstream);

  const portkey = await startPortkey(procs);

  // ---- Next: build each app when its build is older than its sources, then `next start` ----
  const next = await startNext(procs, "next", serverEnv);
  // Webpack: Turbopack, whose workspace root must be the repository's (where node_modules is), would also
  // compile the product's instrumentation.ts and proxy.ts into this app.
  await buildWhenStale(
    procs,
    "bare-next-build",
    BARE_NEXT_DIR,
    ["app", "next.config.mjs", "tsconfig.json"]
      .map((p) => path.join(BARE_NEXT_DIR, p))
      .concat("package-lock.json"),
    ["--webpack"],
  );
  const bareNextPort = await freePort();
  const bareNext = procs.start(
    "bare-next",
    process.execPath,
    [NEXT_BIN, "start", BARE_NEXT_DIR, "-p", String(bareNextPort), "-H", "127.0.0.1"],
    { env: { ...process.env, BENCH_UPSTREAM: upstream.url } },
  );

  const servers = {
    lean,
    leanRedis,
    raw,
    portkey,
    next,
    bareNext: { ...bareNext, url: `http://127.0.0.1:${bareNextPort}` },
  };
  const authed = (base: string) => () =>
    fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${database.secret}` } });
  await waitReady("lean server", lean, authed(servers.lean.url));
  await waitReady("lean server (Redis counters)", leanRedis, authed(leanRedis.url));
  await waitReady("next start", next, authed(servers.next.url));
  await waitReady("portkey", portkey, () => fetch(portkey.url));
  await waitReady("raw proxy", raw, () => fetch(raw.url));
  // A GET on the forwarding route: 405 from Next itself, so the app is up (the route takes POST only).
  await waitReady("bare next start", bareNext, async () => {
    const res = await fetch(`${servers.bareNext.url}/api/upstream/ping`);
    return new Response(null, { status: res.status === 405 ? 200 : 503 });
  });
  say("all servers ready");
  return servers;
}

/** The raw node:http proxy: parse, rename the model, forward, pipe back (the floor under the lean server); not yet ready. */
export async function startRaw(procs: ChildProcesses, upstream: Server): Promise<Server> {
  const port = await freePort();
  const raw = procs.start(
    "raw-proxy",
    process.execPath,
    ["--import", "tsx", "bench/raw-proxy.ts", upstream.url, UPSTREAM_MODEL, String(port)],
    {},
  );
  return { ...raw, url: `http://127.0.0.1:${port}` };
}

/**
 * The product's Next app (`next start`, built first when its build is older than its sources) in its own process
 * on a free port; not yet ready.
 */
export async function startNext(
  procs: ChildProcesses,
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<Server> {
  const sources = [
    ...["app", "components", "features", "lib", "server", "db", "schemas", "public"],
    ...["proxy.ts", "instrumentation.ts"],
  ];
  await buildWhenStale(procs, `${name}-build`, ".", [...sources, "next.config.mjs", "package-lock.json"]);
  const port = await freePort();
  const next = procs.start(
    name,
    process.execPath,
    [...cpuProfileFlags(), NEXT_BIN, "start", "-p", String(port), "-H", "127.0.0.1"],
    { env },
  );
  return { ...next, url: `http://127.0.0.1:${port}` };
}

/**
 * The environment of a Tollgate server (lean or Next): its database, and a gateway config written to
 * `<scratch>/<file>` with one alias, "bench", served by the fake upstream (`extra` adds top-level fields, e.g.
 * `retry`).
 */
export function tollgateEnv(
  procs: ChildProcesses,
  upstream: Server,
  database: { url: string },
  file: string,
  extra: Record<string, unknown>,
): NodeJS.ProcessEnv {
  const configFile = path.join(procs.tmp, file);
  const config = {
    providers: { upstream: { type: "openai", baseUrl: upstream.url, apiKeyEnv: "BENCH_UPSTREAM_KEY" } },
    models: { bench: { candidates: [{ provider: "upstream", model: UPSTREAM_MODEL }] } },
    ...extra,
  };
  parseGatewayConfig(config, configFile, { BENCH_UPSTREAM_KEY: "bench" });
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return {
    ...process.env,
    DATABASE_URL: database.url,
    GATEWAY_CONFIG: configFile,
    BENCH_UPSTREAM_KEY: "bench",
    SEED_SAMPLE_TURNS: "0",
  };
}

/**
 * Tollgate's lean server (server/gateway.ts, whatever it is now) in its own process on a free port; not yet ready.
 * Profiled under BENCH_CPU_PROF unless `profiled` is false (the profiler's buffers would count as its memory).
 */
export async function startLean(
  procs: ChildProcesses,
  name: string,
  env: NodeJS.ProcessEnv,
  profiled = true,
): Promise<Server> {
  const port = await freePort();
  const lean = procs.start(
    name,
    process.execPath,
    [...(profiled ? cpuProfileFlags() : []), ...gatewayCommand()],
    { env: { ...env, GATEWAY_PORT: String(port) } },
  );
  return { ...lean, url: `http://127.0.0.1:${port}` };
}

/**
 * The lean server's node arguments exactly as `npm run gateway` has them (package.json), so the benchmark runs
 * what ships: its flags and its entry point.
 */
export function gatewayCommand(): string[] {
  const script = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
    .scripts.gateway;
  const words = script?.split(/\s+/) ?? [];
  if (words[0] !== "node") throw new Error(`package.json's gateway script must start with node: ${script}`);
  return words.slice(1);
}

/**
 * BENCH_CPU_PROF=<dir>: the lean and Next servers write V8 CPU profiles there when they stop (diagnosis only),
 * sampled every BENCH_CPU_PROF_INTERVAL µs (V8's default, 1000, unless set).
 */
export function cpuProfileFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  const interval = Number(process.env.BENCH_CPU_PROF_INTERVAL);
  if (!dir) return [];
  return [
    "--cpu-prof",
    `--cpu-prof-dir=${path.resolve(dir)}`,
    ...(Number.isInteger(interval) && interval > 0 ? [`--cpu-prof-interval=${interval}`] : []),
  ];
}

/** Portkey's gateway, installed once under the temp directory (not the project). */
async function startPortkey(procs: ChildProcesses): Promise<Server> {
  const portkeyDir = path.join(os.tmpdir(), `tollgate-bench-portkey-${PORTKEY_VERSION}`);
  const portkeyMain = path.join(portkeyDir, "node_modules/@portkey-ai/gateway/build/start-server.js");
  if (!existsSync(portkeyMain)) {
    say(`installing @portkey-ai/gateway@${PORTKEY_VERSION} under ${portkeyDir}`);
    mkdirSync(portkeyDir, { recursive: true });
    await procs.run(
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
  const port = await freePort();
  const portkey = procs.start("portkey", process.execPath, [portkeyMain, "--headless", `--port=${port}`], {
    cwd: portkeyDir,
  });
  return { ...portkey, url: `http://127.0.0.1:${port}` };
}

/** `next build <dir>` when BENCH_BUILD=1 or its .next is older than any of `sources`. */
async function buildWhenStale(
  procs: ChildProcesses,
  name: string,
  dir: string,
  sources: string[],
  flags: string[] = [],
): Promise<void> {
  const built = (() => {
    try {
      return statSync(path.join(dir, ".next", "BUILD_ID")).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const stale = Math.max(...sources.map(newest)) > built;
  if (process.env.BENCH_BUILD !== "1" && !stale) return;
  say(`next build ${dir} …`);
  // Another build of this checkout holds Next's build lock: wait for it (up to 10 min), then build.
  for (let attempt = 1; ; attempt++) {
    try {
      await procs.run(
        `${name}-${attempt}`,
        process.execPath,
        [NEXT_BIN, "build", ...flags, dir],
        process.env,
      );
      return;
    } catch (error) {
      if (attempt >= 40 || !String(error).includes("Another next build process is already running"))
        throw error;
      say("another next build is running here; waiting for it");
      await sleep(15_000);
    }
  }
}

/** The newest modification time under `p` (0 when it does not exist). */
function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(p).map((e) => newest(path.join(p, e))));
}

/** Where the Redis-counter lean server keeps its counters: REDIS_URL's Redis (default the local one), its own prefix. */
export const benchRedis = {
  url: process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379",
  prefix: `tollgate-bench-${process.pid}:`,
};

/**
 * A second lean server whose counters are in Redis (REDIS_URL, a prefix of the run's own), for the column of a
 * governed key with its counters there; not yet ready.
 */
export function startLeanOnRedis(
  procs: ChildProcesses,
  upstream: Server,
  database: { url: string },
): Promise<Server> {
  const env = tollgateEnv(procs, upstream, database, "gateway.redis.config.json", {});
  return startLean(procs, "lean-redis", {
    ...env,
    REDIS_URL: benchRedis.url,
    REDIS_PREFIX: benchRedis.prefix,
  });
}

/** Deletes the run's Redis keys (its prefix), if Redis answers. */
export async function clearBenchRedis(): Promise<void> {
  const { default: Redis } = await import("ioredis");
  const redis = new Redis(benchRedis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on("error", () => {});
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${benchRedis.prefix}*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } catch {
  } finally {
    redis.disconnect();
  }
}

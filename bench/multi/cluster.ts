// The replicas of the run: P lean servers and the Next app on one database, their counters in PostgreSQL or
// Redis, the counter store behind a pausable proxy (bench/multi/pausable-proxy.ts), all in their own processes.
import { readFileSync } from "node:fs";
import { type ChildProcesses, type Started, sleep, tail, waitReady } from "../overhead/processes";
import { type Server, startLean, startNext, tollgateEnv, UPSTREAM_MODEL } from "../overhead/servers";
import { call, type Target } from "./calls";
import { type CounterBackend, PLAN, PRICE } from "./plan";

export type Cluster = {
  servers: (Server & { kind: "lean" | "next" })[];
  /** The proxy in front of the counter store: pause() stops it forwarding for PLAN.pauseMs. */
  store: StoreProxy;
};

export type StoreProxy = Started & {
  port: number;
  pause(): void;
  /** The window it actually stopped forwarding, from its own log (epoch ms); null until it has resumed. */
  window(): { pausedAt: number; resumedAt: number } | null;
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Starts the proxy in front of host:port; resolves once it prints the port it listens on. */
async function startProxy(
  procs: ChildProcesses,
  name: string,
  host: string,
  port: number,
): Promise<StoreProxy> {
  const proc = procs.start(
    name,
    process.execPath,
    ["--import", "tsx", "bench/multi/pausable-proxy.ts", host, String(port), String(PLAN.pauseMs)],
    {},
  );
  const lines = () => readFileSync(proc.logFile, "utf8").split("\n");
  const deadline = Date.now() + 30_000;
  let listening = 0;
  while (!listening) {
    listening = Number(lines()[0]?.trim());
    if (listening) break;
    if (proc.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the store proxy did not start:\n${tail(proc.logFile)}`);
    await sleep(50);
  }
  const stamp = (word: string) => {
    const line = lines().find((l) => l.startsWith(`${word} `));
    return line ? Number(line.split(" ")[1]) : null;
  };
  return {
    ...proc,
    port: listening,
    pause: () => process.kill(proc.child.pid!, "SIGUSR2"),
    window: () => {
      const pausedAt = stamp("paused");
      const resumedAt = stamp("resumed");
      return pausedAt && resumedAt ? { pausedAt, resumedAt } : null;
    },
  };
}

/** `url` with its host and port replaced by the proxy's. */
function through(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  return u.toString();
}

export async function startCluster(
  procs: ChildProcesses,
  upstream: Server,
  backend: CounterBackend,
  databaseUrl: string,
  redis: { url: string; prefix: string },
  warmSecret: string,
): Promise<Cluster> {
  const storeUrl = new URL(backend === "postgres" ? databaseUrl : redis.url);
  const store = await startProxy(
    procs,
    `${backend}-proxy`,
    storeUrl.hostname,
    Number(storeUrl.port || (backend === "postgres" ? 5432 : 6379)),
  );
  // Every server reaches the counter store through the proxy; the ledger and keys stay in PostgreSQL, which in
  // the Redis run is reached directly (only the counter store is paused).
  const env = tollgateEnv(
    procs,
    upstream,
    { url: backend === "postgres" ? through(databaseUrl, store.port) : databaseUrl },
    `gateway.multi.${backend}.json`,
    { prices: { [UPSTREAM_MODEL]: PRICE } },
  );
  delete env.REDIS_URL;
  delete env.REDIS_PREFIX;
  if (backend === "redis") {
    env.REDIS_URL = through(redis.url, store.port);
    env.REDIS_PREFIX = redis.prefix;
  }
  const servers: Cluster["servers"] = [];
  for (let n = 1; n <= PLAN.leanServers; n++)
    servers.push({ ...(await startLean(procs, `${backend}-lean-${n}`, env, false)), kind: "lean" });
  servers.push({ ...(await startNext(procs, `${backend}-next`, env)), kind: "next" });
  for (const s of servers)
    await waitReady(`${backend} ${s.kind} server at ${s.url}`, s, () =>
      fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${warmSecret}` } }),
    );
  say(`${backend}: ${servers.length} servers ready`);
  return { servers, store };
}

/** Calls every server with a key of another tenant (no limits), so the run meets warm processes. */
export async function warmUp(targets: Target[], secret: string): Promise<void> {
  for (const [t, target] of targets.entries()) {
    const answers = await Promise.all(
      // Tagged apart from the run's calls (call-9xxxxx), whose arrivals at the upstream are read afterwards.
      Array.from({ length: PLAN.warmupPerServer }, (_, i) => call(900_000 + i, t, target.url, secret)),
    );
    const failed = answers.find((a) => a.status !== 200);
    if (failed)
      throw new Error(
        `warm-up call to ${target.name} failed: ${failed.status} ${failed.code ?? failed.clientError} ${failed.message ?? ""}`,
      );
  }
}

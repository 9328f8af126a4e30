// What the outage load tests share (tests/integration/outages.test.ts on the lean server, tests/e2e/outages-app.spec.ts
// on `next start` and the worker): the priced reply, each call's outcome, and the three outages in a row.
import type { FaultMode, FaultProxy } from "../fakes/fault-proxy";
import type { FakeProvider } from "../fakes/http";

export const OUTAGE_MS = 5_000;
/** Short answers the reservation covers (max_tokens 50, 1 prompt token billed), so a hard budget holds exactly. */
export const PRICED_REPLY = {
  kind: "text",
  text: "fine",
  usage: { input: 1, output: 50 },
  delayMs: 20,
} as const;

export type Outcome = {
  status: number;
  id: string | null;
  retryAfter: string | null;
  budgetKey: boolean;
  /** The error's code on a refusal. */
  code: string | null;
};

export const errorCode = (body: string) => {
  try {
    return String((JSON.parse(body) as { error?: { code?: unknown } }).error?.code ?? "");
  } catch {
    return "";
  }
};

/** "free 200: 1712, budget 429 budget_exceeded: 144, …" */
export function tallyOutcomes(outcomes: Outcome[]): string {
  const tally = new Map<string, number>();
  for (const o of outcomes) {
    const k = `${o.budgetKey ? "budget" : "free"} ${o.status} ${o.code ?? ""}`.trim();
    tally.set(k, (tally.get(k) ?? 0) + 1);
  }
  return [...tally].map(([k, n]) => `${k}: ${n}`).join(", ");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL refused, then black-holed, then Redis refused (when there is a Redis proxy), each for OUTAGE_MS after
 * `warmupMs` of load; after each, `recovered()` measures the return. `stop()` ends the load, which runs meanwhile.
 * The fake's recorded requests are dropped every second (memory); reset() also restores its own default reply, so
 * the priced one is set again, or the hard budget would be tested on near-free calls.
 */
export async function throughOutages<T>(options: {
  upstream: FakeProvider;
  pg: FaultProxy;
  redis: FaultProxy | null;
  warmupMs: number;
  recovered: () => Promise<T>;
  stop: () => Promise<void>;
}): Promise<Record<string, T>> {
  const { upstream, pg, redis } = options;
  const forget = setInterval(() => {
    upstream.reset();
    upstream.setDefault(PRICED_REPLY);
  }, 1_000);
  const recovery: Record<string, T> = {};
  const outage = async (name: string, proxy: FaultProxy, mode: FaultMode) => {
    await proxy.set(mode);
    await sleep(OUTAGE_MS);
    await proxy.set("pass");
    recovery[name] = await options.recovered();
  };
  try {
    await sleep(options.warmupMs);
    await outage("postgres refused", pg, "refuse");
    await outage("postgres black-holed", pg, "blackhole");
    if (redis) await outage("redis refused", redis, "refuse");
    await sleep(500);
  } finally {
    clearInterval(forget);
    await options.stop();
  }
  return recovery;
}

// What the gateway library adds per request over calling the same upstream directly with the same SDK.
// Side by side in one run: sequential (7 rounds of 25, alternating which goes first) and 32 concurrent for
// 10 s each. Writes its figures to BENCHMARKS.md.   npm run bench:gateway
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import OpenAI from "openai";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { ChatMessage } from "@/lib/gateway/types";
import { machine, median, quantile, writeSection } from "./report";

const ROUNDS = 7;
const PER_ROUND = 25;
const CONCURRENCY = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

// node itself (not npx), so kill() stops the server rather than a wrapper that leaves it running.
const upstream = spawn(process.execPath, ["--import", "tsx", "bench/fake-upstream.ts"], {
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise<string>((resolve) =>
  createInterface({ input: upstream.stdout! }).once("line", resolve),
);

const messages: ChatMessage[] = [{ role: "user", content: "Say ok." }];
const sdk = new OpenAI({ apiKey: "bench", baseURL: url, maxRetries: 0 });
const gateway = new Gateway(
  parseGatewayConfig(
    {
      providers: { upstream: { type: "openai", baseUrl: url, apiKeyEnv: "BENCH_KEY" } },
      models: { bench: { candidates: [{ provider: "upstream", model: "gpt-4o-mini" }] } },
    },
    "bench",
    { BENCH_KEY: "bench" },
  ),
);

const modes = {
  direct: () =>
    sdk.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Say ok." }] }),
  gateway: () => gateway.chat({ model: "bench", messages }),
};
type Mode = keyof typeof modes;

async function timeOne(mode: Mode): Promise<number> {
  const t = performance.now();
  await modes[mode]();
  return performance.now() - t;
}

// Warm up both paths (connections, JIT).
for (let i = 0; i < 100; i++) {
  await timeOne("direct");
  await timeOne("gateway");
}

const sequential: Record<Mode, number[]> = { direct: [], gateway: [] };
const roundDiffs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order: Mode[] = round % 2 ? ["gateway", "direct"] : ["direct", "gateway"];
  const perRound: Record<Mode, number[]> = { direct: [], gateway: [] };
  for (const mode of order) for (let i = 0; i < PER_ROUND; i++) perRound[mode].push(await timeOne(mode));
  sequential.direct.push(...perRound.direct);
  sequential.gateway.push(...perRound.gateway);
  roundDiffs.push(median(perRound.gateway) - median(perRound.direct));
}

/** 32 workers for `seconds`; returns the latencies and the process CPU time spent. */
async function concurrentSlice(mode: Mode, seconds: number) {
  const latencies: number[] = [];
  const cpuStart = process.cpuUsage();
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) latencies.push(await timeOne(mode));
    }),
  );
  const cpu = process.cpuUsage(cpuStart);
  return { latencies, cpuUs: cpu.user + cpu.system };
}

// Each mode gets SECONDS in all, in alternating slices, so machine noise falls on both alike.
const SLICES = 5;
const pooled: Record<Mode, { latencies: number[]; cpuUs: number }> = {
  direct: { latencies: [], cpuUs: 0 },
  gateway: { latencies: [], cpuUs: 0 },
};
for (let i = 0; i < SLICES; i++) {
  for (const mode of (i % 2 ? ["gateway", "direct"] : ["direct", "gateway"]) as Mode[]) {
    const slice = await concurrentSlice(mode, SECONDS / SLICES);
    pooled[mode].latencies.push(...slice.latencies);
    pooled[mode].cpuUs += slice.cpuUs;
  }
}
const summarize = ({ latencies, cpuUs }: { latencies: number[]; cpuUs: number }) => ({
  requests: latencies.length,
  perSecond: latencies.length / SECONDS,
  p50: median(latencies),
  p95: quantile(latencies, 0.95),
  cpuUsPerRequest: cpuUs / latencies.length,
});
const load = { direct: summarize(pooled.direct), gateway: summarize(pooled.gateway) };
upstream.kill();

const f = (n: number, d = 3) => n.toFixed(d);
const seqAdded = median(sequential.gateway) - median(sequential.direct);
const body = `
## Gateway library overhead (bench/gateway-lib.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()}

The same OpenAI SDK call to the fake upstream (a separate process on 127.0.0.1), made directly and through
\`Gateway.chat\` (alias resolution, cooldown check, attempt timers, fetch hook, usage normalisation, pricing, stamp).

| | direct | through the gateway | added |
| --- | --- | --- | --- |
| sequential, median of ${ROUNDS}×${PER_ROUND} requests (ms) | ${f(median(sequential.direct))} | ${f(median(sequential.gateway))} | **${f(seqAdded)}** |
| sequential, median of the ${ROUNDS} per-round differences (ms) | | | ${f(median(roundDiffs))} |
| ${CONCURRENCY} concurrent, ${SECONDS} s each in ${SLICES} alternating slices: requests/s | ${f(load.direct.perSecond, 0)} | ${f(load.gateway.perSecond, 0)} | |
| ${CONCURRENCY} concurrent: median latency (ms) | ${f(load.direct.p50)} | ${f(load.gateway.p50)} | ${f(load.gateway.p50 - load.direct.p50)} |
| ${CONCURRENCY} concurrent: p95 latency (ms) | ${f(load.direct.p95)} | ${f(load.gateway.p95)} | |
| client CPU per request (ms) | ${f(load.direct.cpuUsPerRequest / 1000)} | ${f(load.gateway.cpuUsPerRequest / 1000)} | **${f((load.gateway.cpuUsPerRequest - load.direct.cpuUsPerRequest) / 1000)}** |

Target: at most 0.3 ms added per request. Under concurrency the latency difference includes queueing on a
2-core machine shared with the upstream; the CPU-per-request line is the steadier measure of what the library costs.
`;
writeSection("gateway-lib", body);
process.stdout.write(body);
process.exit(0);

// The BENCHMARKS.md section: the table per path, the targets met or missed, the ledger check, the method.
import os from "node:os";
import { VERSION as OPENAI_VERSION } from "openai/version";
import { machine, median, quantile } from "../report";
import type { LedgerCount } from "./database";
import { type Measurements, PATHS, type Path, type PerPath, PLAN, type Target } from "./measure";
import { PORTKEY_VERSION } from "./servers";

export type LedgerCheck = { baseline: LedgerCount; after: LedgerCount };

type Load = {
  perSecond: number;
  p50: number;
  p95: number;
  serverCpu: number;
  postgresCpu: number;
  benchCpu: number;
  errors: number;
};

export function reportSection(
  targets: PerPath<Target>,
  m: Measurements,
  ledger: LedgerCheck,
  postgresVersion: string,
): string {
  const { rounds: ROUNDS, perRound: PER_ROUND, warmup: WARMUP, concurrency: CONCURRENCY } = PLAN;
  const { seconds: SECONDS, slices: SLICES } = PLAN;
  const { errors, ok, lastError, elsewherePct } = m;
  const order = PATHS;
  const f = (n: number, d = 3) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
  const int = (n: number) => Math.round(n).toLocaleString("en-US");
  const seq = Object.fromEntries(order.map((p) => [p, median(m.sequential[p])])) as PerPath<number>;
  const roundDiff = (a: Path, b: Path) => median(m.roundMedians[a].map((x, i) => x - m.roundMedians[b][i]!));
  const load = Object.fromEntries(order.map((p) => [p, loadFigures(m.pooled[p], SECONDS)])) as PerPath<Load>;
  const row = (title: string, cell: (p: Path) => string) => `| ${title} | ${order.map(cell).join(" | ")} |`;
  const leanAdded = seq.lean - seq.direct;
  const nextAdded = seq.next - seq.bare;
  const rpsRatio = load.lean.perSecond / load.portkey.perSecond;
  const verdict = (pass: boolean) => (pass ? "pass" : "**MISS**");
  // One ledger row per answered /v1 request (lean + Next), once the writes have settled.
  const { baseline, after: rows } = ledger;
  const answered = ok.lean + ok.next;
  const recorded = rows.total - baseline.total;
  const requestEvents = rows.requestEvents - baseline.requestEvents;
  const ledgerLine =
    recorded === answered && (rows.byStatus.success ?? 0) - (baseline.byStatus.success ?? 0) === answered
      ? `${int(recorded)} ledger rows (source \`api\`, all \`success\`) for ${int(answered)} requests answered 200 by the lean server and Next /v1: **one per request, none lost**.`
      : `**${int(recorded)} ledger rows for ${int(answered)} requests answered 200** by the lean server and Next /v1 (difference ${int(recorded - answered)}; by status: ${JSON.stringify(rows.byStatus)}).`;
  const errorTotal = order.reduce((s, p) => s + errors[p], 0);

  return `
## Gateway overhead: the servers, side by side (bench/gateway-overhead.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${postgresVersion}

One process makes the same non-streamed chat completion ("Say ok.") with the official \`openai\` client (${OPENAI_VERSION}),
to the fake upstream (\`bench/fake-upstream.ts\`, its own process) directly and through five servers, each in its own process on
127.0.0.1: a raw node:http proxy (\`bench/raw-proxy.ts\`: reads the body, \`JSON.parse\`, sets the model, \`JSON.stringify\`,
\`http.request\` on a keep-alive agent, pipes status, headers and body back; no key check, no ledger: the floor), Tollgate's lean
server (\`server/gateway.ts\`), the production Next server (\`next start\`) at \`/v1\`, a bare
Next app (\`bench/bare-next\`, its own \`next start\`) whose one route just forwards the call (the baseline for
\`/v1\`: same framework, no auth, no ledger), and Portkey's gateway ${PORTKEY_VERSION} (\`--headless\`, \`x-portkey-provider: openai\` with
the fake as custom host). Both Tollgate paths authenticate a tenant API key and write the ledger row and its audit event to
PostgreSQL (a fresh database, demo seed) on every request, as they always do.

| | ${order.map((p) => targets[p].label).join(" | ")} |
| --- | ${order.map(() => "---").join(" | ")} |
${row(`sequential, median of ${ROUNDS}×${PER_ROUND} requests (ms)`, (p) => f(seq[p]))}
${row("added over direct (ms)", (p) => (p === "direct" ? "" : p === "lean" ? `**${f(seq[p] - seq.direct)}**` : f(seq[p] - seq.direct)))}
${row("added over the raw proxy (ms): the lean server's own work", (p) => (p === "lean" ? f(seq.lean - seq.raw) : ""))}
${row("added over the bare Next route (ms)", (p) => (p === "next" ? `**${f(nextAdded)}**` : ""))}
${row(`median of the ${ROUNDS} per-round differences (ms; Next /v1: over the bare route)`, (p) => (p === "lean" || p === "portkey" || p === "bare" || p === "raw" ? f(roundDiff(p, "direct")) : p === "next" ? f(roundDiff("next", "bare")) : ""))}
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
}

function loadFigures(x: Measurements["pooled"][Path], seconds: number): Load {
  const n = x.latencies.length;
  return {
    perSecond: n / seconds,
    p50: median(x.latencies),
    p95: quantile(x.latencies, 0.95),
    serverCpu: x.serverCpuMs / n,
    postgresCpu: x.postgresMs / n,
    benchCpu: x.benchMs / n,
    errors: x.errors,
  };
}

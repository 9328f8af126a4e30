// The BENCHMARKS.md section: the table per path, the ratios and targets met or missed, the ledger check, the
// load run, the lean server's profile when one was taken, and the method.
import os from "node:os";
import { VERSION as OPENAI_VERSION } from "openai/version";
import { machine, median, quantile } from "../report";
import type { LoadTotals } from "./concurrent";
import type { LedgerCount } from "./database";
import { f, int, verdict } from "./format";
import { loadRunSection } from "./load-report";
import type { LoadRun } from "./load-run";
import type { Measurements } from "./measure";
import { PATHS, type Path, type PerPath, PLAN, STREAM_PATHS, type StreamPath, type Target } from "./plan";
import { PORTKEY_VERSION } from "./servers";

/** The ledger after the measuring: all `/v1` rows (and their audit), and each Tollgate path's rows by its key. */
export type LedgerCheck = {
  baseline: LedgerCount;
  after: LedgerCount;
  byKey: { lean: number; limited: number; next: number };
};

type Load = {
  perSecond: number;
  recordedPerSecond: number;
  p50: number;
  p95: number;
  serverCpu: number;
  postgresCpu: number;
  benchCpu: number;
};

export function reportSection(
  targets: PerPath<Target>,
  m: Measurements,
  ledger: LedgerCheck,
  postgresVersion: string,
  extra: { load?: LoadRun; profile?: string },
): string {
  const { rounds: ROUNDS, perRound: PER_ROUND, warmup: WARMUP, concurrency: CONCURRENCY } = PLAN;
  const { calls: CALLS, slices: SLICES, streamsPerRound: STREAMS } = PLAN;
  const { errors, ok, lastError, elsewherePct } = m;
  const seq = Object.fromEntries(PATHS.map((p) => [p, median(m.sequential[p])])) as PerPath<number>;
  const roundDiff = (a: Path, b: Path) => median(m.roundMedians[a].map((x, i) => x - m.roundMedians[b][i]!));
  const load = Object.fromEntries(PATHS.map((p) => [p, loadFigures(m.pooled[p])])) as PerPath<Load>;
  const isStreamed = (p: Path): p is StreamPath =>
    (STREAM_PATHS as readonly Path[]).includes(p) && !m.streams[p as StreamPath].fails;
  const streamCell = (p: Path, cell: (p: StreamPath) => string) =>
    isStreamed(p)
      ? cell(p)
      : (STREAM_PATHS as readonly Path[]).includes(p)
        ? `fails: ${m.streams[p as StreamPath].fails?.replace(/\|/g, "\\|")}`
        : "— (reads the whole answer)";
  const relay = (p: Path) => (isStreamed(p) ? median(m.streams[p].relayMs) : Number.NaN);
  const row = (title: string, cell: (p: Path) => string) => `| ${title} | ${PATHS.map(cell).join(" | ")} |`;
  const only = (paths: Path[], cell: (p: Path) => string) => (p: Path) => (paths.includes(p) ? cell(p) : "");
  const bold = (paths: Path[], cell: (p: Path) => string) => (p: Path) =>
    paths.includes(p) ? `**${cell(p)}**` : cell(p);

  // The figures the targets are about.
  const leanAdded = seq.lean - seq.direct;
  const nextAdded = seq.next - seq.bare;
  const cpuVsPortkey = load.lean.serverCpu / load.portkey.serverCpu;
  const cpuVsRaw = load.lean.serverCpu / load.raw.serverCpu;
  const recordedVsPortkey = load.lean.recordedPerSecond / load.portkey.perSecond;
  const leanRelayAdded = relay("lean") - relay("direct");
  const nextRelayAdded = relay("next") - relay("direct");

  // One ledger row per call answered on Tollgate's two paths, under each path's key, once the writes settled.
  const { baseline, after: rows } = ledger;
  const answered = ok.lean + ok.limited + ok.next;
  const recorded = rows.total - baseline.total;
  const successRows = (rows.byStatus.success ?? 0) - (baseline.byStatus.success ?? 0);
  const requestEvents = rows.requestEvents - baseline.requestEvents;
  const byKeyOk =
    ledger.byKey.lean === ok.lean && ledger.byKey.limited === ok.limited && ledger.byKey.next === ok.next;
  const ledgerLine =
    byKeyOk && recorded === answered && successRows === answered
      ? `${int(recorded)} ledger rows (source \`api\`, all \`success\`) for ${int(answered)} calls answered 200 by the lean server (${int(ok.lean)}, and ${int(ok.limited)} under the key with limits: as many rows under each key) and Next /v1 (${int(ok.next)}, likewise): **one per call, none lost**.`
      : `**${int(recorded)} ledger rows for ${int(answered)} calls answered 200** by the lean server and Next /v1 (difference ${int(recorded - answered)}; by status: ${JSON.stringify(rows.byStatus)}; under the lean key ${int(ledger.byKey.lean)} for ${int(ok.lean)} calls, under the Next key ${int(ledger.byKey.next)} for ${int(ok.next)}).`;
  const errorTotal = PATHS.reduce((s, p) => s + errors[p], 0);
  const perSlice = Math.ceil(CALLS / SLICES);

  return `
## Gateway overhead: the servers, side by side (bench/gateway-overhead.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${postgresVersion}

One process calls the fake upstream (\`bench/fake-upstream.ts\`, its own process) directly and through five servers, each in its
own process on 127.0.0.1: a raw node:http proxy (\`bench/raw-proxy.ts\`: reads the body, \`JSON.parse\`, sets the model,
\`JSON.stringify\`, \`http.request\` on a keep-alive agent, pipes status, headers and body back; no key check, no ledger: **the
floor**), Tollgate's lean server (\`server/gateway.ts\`), Portkey's gateway ${PORTKEY_VERSION} (\`--headless\`, \`x-portkey-provider: openai\`
with the fake as custom host), a bare Next app (\`bench/bare-next\`, its own \`next start\`) whose one route just forwards the call
(the baseline for \`/v1\`: same framework, no auth, no ledger), and the production Next server (\`next start\`) at \`/v1\`. Both
Tollgate paths authenticate a tenant API key (one key each) and write the ledger row and its audit event to PostgreSQL (a fresh
database, demo seed) on every call, as they always do.

| | ${PATHS.map((p) => targets[p].label).join(" | ")} |
| --- | ${PATHS.map(() => "---").join(" | ")} |
${row(`sequential, median of ${ROUNDS}×${PER_ROUND} calls (ms)`, (p) => f(seq[p]))}
${row("added over direct (ms)", (p) => (p === "direct" ? "" : p === "lean" ? `**${f(seq[p] - seq.direct)}**` : f(seq[p] - seq.direct)))}
${row(
  "added over the raw proxy (ms): the lean server's own work",
  only(["lean"], () => f(seq.lean - seq.raw)),
)}
${row(
  "added over the bare Next route (ms)",
  only(["next"], () => `**${f(nextAdded)}**`),
)}
${row(`median of the ${ROUNDS} per-round differences over direct (ms; Next /v1: over the bare route)`, (p) => (p === "direct" ? "" : p === "next" ? f(roundDiff("next", "bare")) : f(roundDiff(p, "direct"))))}
${row(`streamed, ${ROUNDS}×${STREAMS} calls: first byte relayed, median (ms; arrival − upstream send)`, (p) => streamCell(p, (q) => f(relay(q))))}
${row("streamed: first byte added over direct's (ms)", (p) => (p === "lean" ? `**${f(leanRelayAdded)}**` : isStreamed(p) && p !== "direct" ? f(relay(p) - relay("direct")) : ""))}
${row("streamed: first byte arrived before the upstream sent its last chunk", (p) => (isStreamed(p) ? `${m.streams[p].beforeLast}/${m.streams[p].calls}` : ""))}
${row(
  `${CONCURRENCY} concurrent, ${int(CALLS)} calls in ${SLICES} alternating slices of ${int(perSlice)}: answered/s`,
  bold(["lean", "portkey"], (p) => f(load[p].perSecond, 0)),
)}
${row(
  "ledger rows recorded/s while those slices lasted",
  only(["lean", "next"], (p) =>
    p === "lean" ? `**${f(load[p].recordedPerSecond, 0)}**` : f(load[p].recordedPerSecond, 0),
  ),
)}
${row(`${CONCURRENCY} concurrent: median latency (ms)`, (p) => f(load[p].p50, 2))}
${row(`${CONCURRENCY} concurrent: p95 latency (ms)`, (p) => f(load[p].p95, 2))}
${row(
  "server process group CPU per call (ms)",
  bold(["raw", "lean", "portkey"], (p) => f(load[p].serverCpu)),
)}
${row("server under load: share of one core", (p) => `${f((load[p].serverCpu * load[p].perSecond) / 10, 0)}%`)}
${row("PostgreSQL CPU per call (ms)", (p) => f(load[p].postgresCpu))}
${row("all processes of the run (client, upstream, server, PostgreSQL): CPU per call (ms)", (p) => f(load[p].benchCpu))}
${row("failed calls (whole run)", (p) => String(errors[p]))}

Limits and budgets (the "limited" column: the same lean server, under a key with requests and tokens per minute and daily
and monthly budgets, soft and hard, none reached; counters in ${process.env.REDIS_URL ? "Redis" : "PostgreSQL (no REDIS_URL)"}): ${f(load.limited.serverCpu - load.lean.serverCpu)} ms
more server CPU per call (${f(load.limited.serverCpu)} against ${f(load.lean.serverCpu)}), ${f(load.limited.postgresCpu - load.lean.postgresCpu)} ms more of PostgreSQL's,
and ${f(seq.limited - seq.lean)} ms more sequential latency: the rate-limit counters are taken before the call and the budget
reserved and settled around it (each a round trip), which a call under no limit skips.

Ratios: lean server CPU per call ÷ Portkey's ${f(cpuVsPortkey, 2)}, ÷ the raw proxy's ${f(cpuVsRaw, 2)}; lean server recorded/s ÷
Portkey answered/s ${f(recordedVsPortkey, 2)}; lean answered/s ÷ Portkey's ${f(load.lean.perSecond / load.portkey.perSecond, 2)}.

Targets (this run):
- lean server CPU per call at most 1/3 of Portkey's: ${f(cpuVsPortkey, 2)}×, ${verdict(cpuVsPortkey <= 1 / 3)}
- lean server adds at most 1 ms over direct (sequential median): ${f(leanAdded)} ms, ${verdict(leanAdded <= 1)}
- lean server CPU per call at most 2× the raw proxy's: ${f(cpuVsRaw, 2)}×, ${verdict(cpuVsRaw <= 2)}
- Next \`/v1\` adds at most 1 ms over the bare Next route: ${f(nextAdded)} ms, ${verdict(nextAdded <= 1)}
- lean server records at least 1.5× Portkey's answered calls per second: ${f(recordedVsPortkey, 2)}×, ${verdict(recordedVsPortkey >= 1.5)}
- streams: the lean server relays the first byte at most 1 ms later than direct: ${f(leanRelayAdded)} ms, ${verdict(leanRelayAdded <= 1)} (Next /v1: ${f(nextRelayAdded)} ms)

Ledger: ${ledgerLine} ${int(requestEvents)} \`request\` audit events.${errorTotal ? ` Last error: \`${lastError.slice(0, 200)}\`.` : ""}
${extra.load ? `\n${loadRunSection(extra.load)}\n` : ""}${extra.profile ? `\n${extra.profile}\n` : ""}
Method: ${WARMUP} warm-up calls per path, interleaved (and ${Math.floor(WARMUP / 10)} streamed ones). Sequential: ${ROUNDS} rounds in which every
path makes ${PER_ROUND} non-streamed chat completions ("Say ok.") with the official \`openai\` client (${OPENAI_VERSION}) one after another,
the first path rotating each round, so machine noise falls on all alike. Streamed: ${ROUNDS} rounds of ${STREAMS} calls per path the same
way, posted with raw node:http on a keep-alive agent (\`stream: true\`, \`include_usage\`); the fake upstream sends the role chunk at once,
stamped with its send time from \`process.hrtime.bigint()\` (CLOCK_MONOTONIC, one clock for every process on the machine) in its id,
and the rest ${process.env.BENCH_STREAM_PAUSE_MS ?? 20} ms later; the client notes the same clock when the first body byte arrives. Relay time = arrival − send. Under load:
${int(CALLS)} calls per path with the \`openai\` client, ${CONCURRENCY} at a time, in ${SLICES} slices of ${int(perSlice)}, the paths alternating; a slice
lasts from its first call to its last answer. CPU is read from \`/proc\` at each slice's start and end: the server's whole process
group, PostgreSQL's processes for this database (backends, WAL writer, checkpointer), and all of the run's processes together.
Recorded/s: the ledger rows under the path's API key (\`sys_agent_turn\`), counted at the slice's start and end, over the slice's time.
Everything, the client, the upstream, the servers and PostgreSQL, shares the ${os.cpus().length} cores, so calls per second follow the
run's total CPU per call rather than one server's ceiling. The run waits for the rest of the machine to be quiet before it measures;
while it measured, processes outside the benchmark used ${f(elsewherePct, 0)}% of one core on average${elsewherePct > 10 ? " (**the machine was not quiet: the figures are skewed**)" : ""}.
`;
}

function loadFigures(x: LoadTotals): Load {
  const n = x.latencies.length;
  return {
    perSecond: n / x.seconds,
    recordedPerSecond: x.recordedRows / x.seconds,
    p50: median(x.latencies),
    p95: quantile(x.latencies, 0.95),
    serverCpu: x.serverCpuMs / n,
    postgresCpu: x.postgresMs / n,
    benchCpu: x.benchMs / n,
  };
}

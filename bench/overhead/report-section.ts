// The BENCHMARKS.md section: a table per client (plain fetch, the openai SDK), the streams, what governing a call
// costs (the governed keys beside the key without limits), the targets met or not, the ledger check, the load
// run, the lean server's profile when one was taken, and the method.
import os from "node:os";
import { VERSION as OPENAI_VERSION } from "openai/version";
import { machine, median, quantile } from "../report";
import { CLIENTS, type Client } from "./clients";
import type { LoadTotals } from "./concurrent";
import type { LedgerCount } from "./database";
import { f, int, met } from "./format";
import { loadRunSection } from "./load-report";
import type { LoadRun } from "./load-run";
import type { Measurements } from "./measure";
import {
  END_USERS,
  LEDGER_PATHS,
  type LedgerPath,
  PATHS,
  type Path,
  type PerPath,
  PLAN,
  STREAM_PATHS,
  type StreamPath,
  type Target,
} from "./plan";
import { PORTKEY_VERSION } from "./servers";

/** The ledger after the measuring: all `/v1` rows (and their audit), and each Tollgate path's rows by its key. */
export type LedgerCheck = {
  baseline: LedgerCount;
  after: LedgerCount;
  byKey: Record<LedgerPath, number>;
};

type Load = {
  perSecond: number;
  recordedPerSecond: number;
  p50: number;
  p95: number;
  serverCpu: number;
  postgresCpu: number;
  redisCpu: number;
  benchCpu: number;
};

/** What a client's run came to, per path: sequential medians and the figures under load. */
type ClientFigures = {
  seq: PerPath<number>;
  roundDiff: (a: Path, b: Path) => number;
  load: PerPath<Load>;
};

const CLIENT_TITLE: Record<Client, string> = {
  fetch: "a plain `fetch` client",
  openai: `the official \`openai\` client (${OPENAI_VERSION})`,
};

/** The issue's bounds for a governed key against the key without limits. */
const GOVERNED = { cpuRatio: 1.3, postgresMs: 0.3, sequentialMs: 0.5, callsRatio: 0.8 };

export function reportSection(
  targets: PerPath<Target>,
  m: Measurements,
  ledger: LedgerCheck,
  postgresVersion: string,
  extra: {
    load?: LoadRun;
    profile?: string;
    machineLoad?: string;
    stored?: { turns: number; events: number };
  },
): string {
  const { rounds: ROUNDS, perRound: PER_ROUND, warmup: WARMUP, concurrency: CONCURRENCY } = PLAN;
  const { calls: CALLS, slices: SLICES, streamsPerRound: STREAMS } = PLAN;
  const { errors, ok, lastError, elsewherePct } = m;
  const by = Object.fromEntries(CLIENTS.map((c) => [c, figuresOf(m, c)])) as Record<Client, ClientFigures>;
  const isStreamed = (p: Path) =>
    (STREAM_PATHS as readonly Path[]).includes(p) && !m.streams[p as StreamPath].fails;
  const relay = (p: Path) => (isStreamed(p) ? median(m.streams[p as StreamPath].relayMs) : Number.NaN);
  const leanRelayAdded = relay("lean") - relay("direct");
  const nextRelayAdded = relay("next") - relay("direct");
  const perSlice = Math.ceil(CALLS / SLICES);

  // One ledger row per call answered on Tollgate's paths, under each path's key, once the writes settled.
  const { baseline, after: rows } = ledger;
  const answered = LEDGER_PATHS.reduce((s, p) => s + ok[p], 0);
  const recorded = rows.total - baseline.total;
  const successRows = (rows.byStatus.success ?? 0) - (baseline.byStatus.success ?? 0);
  const requestEvents = rows.requestEvents - baseline.requestEvents;
  const byKeyOk = LEDGER_PATHS.every((p) => ledger.byKey[p] === ok[p]);
  const perKey = LEDGER_PATHS.map(
    (p) => `${targets[p].label} ${int(ledger.byKey[p])} for ${int(ok[p])}`,
  ).join(", ");
  const ledgerLine =
    byKeyOk && recorded === answered && successRows === answered
      ? `${int(recorded)} ledger rows (source \`api\`, all \`success\`) for ${int(answered)} calls answered 200 on Tollgate's paths, as many under each path's key (${perKey}): **one per call, none lost**.`
      : `**${int(recorded)} ledger rows for ${int(answered)} calls answered 200** on Tollgate's paths (difference ${int(recorded - answered)}; by status: ${JSON.stringify(rows.byStatus)}; rows for calls under each key: ${perKey}).`;
  const errorTotal = PATHS.reduce((s, p) => s + errors[p], 0);

  const clientTable = (c: Client) => {
    const { seq, roundDiff, load } = by[c];
    const row = (title: string, cell: (p: Path) => string) => `| ${title} | ${PATHS.map(cell).join(" | ")} |`;
    const only = (paths: Path[], cell: (p: Path) => string) => (p: Path) =>
      paths.includes(p) ? cell(p) : "";
    const bold = (paths: Path[], cell: (p: Path) => string) => (p: Path) =>
      paths.includes(p) ? `**${cell(p)}**` : cell(p);
    return `### With ${CLIENT_TITLE[c]}

| | ${PATHS.map((p) => targets[p].label).join(" | ")} |
| --- | ${PATHS.map(() => "---").join(" | ")} |
${row(`sequential, median of ${ROUNDS}×${PER_ROUND} calls (ms)`, (p) => f(seq[p]))}
${row("added over direct (ms)", (p) => (p === "direct" ? "" : p === "lean" ? `**${f(seq[p] - seq.direct)}**` : f(seq[p] - seq.direct)))}
${row(
  "added over the raw proxy (ms): the lean server's own work",
  only(["lean", "pg", "endUsers", "guarded", "leanRedis", "redis"], (p) => f(seq[p] - seq.raw)),
)}
${row(
  "added over the bare Next route (ms)",
  only(["next"], () => `**${f(seq.next - seq.bare)}**`),
)}
${row(`median of the ${ROUNDS} per-round differences over direct (ms; Next /v1: over the bare route)`, (p) => (p === "direct" ? "" : p === "next" ? f(roundDiff("next", "bare")) : f(roundDiff(p, "direct"))))}
${row(
  `${CONCURRENCY} concurrent, ${int(CALLS)} calls in ${SLICES} slices of ${int(perSlice)}: answered/s`,
  bold(["lean", "portkey"], (p) => f(load[p].perSecond, 0)),
)}
${row(
  "ledger rows recorded/s while those slices lasted",
  only([...LEDGER_PATHS], (p) =>
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
${row("redis-server CPU per call (ms)", (p) => f(load[p].redisCpu))}
${row("all processes of the run (client, upstream, server, PostgreSQL): CPU per call (ms)", (p) => f(load[p].benchCpu))}`;
  };

  const streamRow = (title: string, cell: (p: StreamPath) => string) =>
    `| ${title} | ${STREAM_PATHS.map(cell).join(" | ")} |`;
  const streamCell = (p: StreamPath, cell: (p: StreamPath) => string) =>
    isStreamed(p) ? cell(p) : `fails: ${m.streams[p].fails?.replace(/\|/g, "\\|")}`;
  const streamsTable = `### Streams

| | ${STREAM_PATHS.map((p) => targets[p].label).join(" | ")} |
| --- | ${STREAM_PATHS.map(() => "---").join(" | ")} |
${streamRow(`${ROUNDS}×${STREAMS} calls: first byte relayed, median (ms; arrival − upstream send)`, (p) => streamCell(p, (q) => f(relay(q))))}
${streamRow("first byte added over direct's (ms)", (p) => (p === "direct" ? "" : streamCell(p, (q) => (q === "lean" ? `**${f(leanRelayAdded)}**` : f(relay(q) - relay("direct"))))))}
${streamRow("first byte arrived before the upstream sent its last chunk", (p) => (isStreamed(p) ? `${m.streams[p].beforeLast}/${m.streams[p].calls}` : ""))}

The bare Next route is not in it: it reads the upstream's whole answer before it replies.`;

  // Governing a call: each governed column against the key without limits, with the issue's bounds.
  const governedRows = CLIENTS.flatMap((c) => {
    const { seq, load } = by[c];
    const added = (p: Path) => seq[p] - seq.direct;
    // Each governed key against the key without limits on its own server (the same process, the same setup).
    const baseOf = { pg: "lean", endUsers: "lean", guarded: "lean", redis: "leanRedis" } as const;
    return (["lean", "pg", "endUsers", "guarded", "leanRedis", "redis"] as const).map((p) => {
      const x = load[p];
      const b = p === "lean" || p === "leanRedis" ? undefined : baseOf[p];
      const base = b ? load[b] : undefined;
      const cells =
        !b || !base
          ? ["", "", "", ""]
          : [
              ratioCell(x.serverCpu / base.serverCpu, (r) => r <= GOVERNED.cpuRatio),
              deltaCell(x.postgresCpu - base.postgresCpu, (d) => d <= GOVERNED.postgresMs),
              deltaCell(seq[p] - seq[b], (d) => d <= GOVERNED.sequentialMs),
              ratioCell(x.perSecond / base.perSecond, (r) => r >= GOVERNED.callsRatio),
            ];
      return `| ${c} | ${targets[p].label} | ${f(x.serverCpu)} | ${f(x.postgresCpu)} | ${f(x.redisCpu)} | ${f(added(p))} | ${f(x.perSecond, 0)} | ${cells.join(" | ")} |`;
    });
  });
  const governedTable = `### Governing a call: a key under all six limits beside the key without limits

The governed keys have requests and tokens per minute and daily and monthly budgets, soft and hard, all far above
what the run spends (none is reached, so every check passes and is paid for). "PostgreSQL counters": the same lean
server as the key without limits ("lean server"); "Redis counters": a second lean server started with \`REDIS_URL\`
and a \`REDIS_PREFIX\` of the run's own, set against a key without limits on that same server. "Governed + end-user
template": the PostgreSQL-counted key's six limits plus the same six as a template for each end user of its calls,
each call naming the next of ${END_USERS} end users (the fetch client in \`x-tollgate-end-user\`, the openai client in
\`user\`), so each call also reserves and settles that end user's own counters. "Guardrails on": a key of
another tenant whose guardrail policy runs every deterministic check on each call (PII and secrets redacted, injection
warned, a 50-term deny list, PII redacted in the answer), on the same lean server, set against the key without limits
(whose tenant has no rules); the bounds below are the governed keys', shown for comparison. The bounds: server CPU per call at most ${GOVERNED.cpuRatio}× the unlimited key's,
PostgreSQL's at most ${GOVERNED.postgresMs} ms more, sequential latency at most ${GOVERNED.sequentialMs} ms more,
calls per second at least ${GOVERNED.callsRatio}× as many.

| client | column | server CPU per call (ms) | PostgreSQL CPU per call (ms) | redis-server CPU per call (ms) | sequential added over direct (ms) | calls/s | server CPU ÷ unlimited (≤ ${GOVERNED.cpuRatio}×) | PostgreSQL − unlimited (≤ +${GOVERNED.postgresMs} ms) | sequential − unlimited (≤ +${GOVERNED.sequentialMs} ms) | calls/s ÷ unlimited (≥ ${GOVERNED.callsRatio}×) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${governedRows.join("\n")}`;

  // The targets, per client.
  const perClient = (
    title: string,
    value: (c: Client) => number,
    unit: string,
    pass: (v: number) => boolean,
  ) =>
    `- ${title}: ${CLIENTS.map((c) => `${c} ${f(value(c), unit === "×" ? 2 : 3)}${unit === "×" ? "×" : " ms"}, ${met(pass(value(c)))}`).join("; ")}`;
  const leanAdded = (c: Client) => by[c].seq.lean - by[c].seq.direct;
  const rawAdded = (c: Client) => by[c].seq.raw - by[c].seq.direct;
  const cpu = (c: Client, p: Path) => by[c].load[p].serverCpu;
  const targetsList = [
    perClient(
      `governed key with an end-user template: server CPU per call at most ${GOVERNED.cpuRatio}× the unlimited key's`,
      (c) => cpu(c, "endUsers") / cpu(c, "lean"),
      "×",
      (v) => v <= GOVERNED.cpuRatio,
    ),
    perClient(
      "lean server CPU per call at most 1/3 of Portkey's",
      (c) => cpu(c, "lean") / cpu(c, "portkey"),
      "×",
      (v) => v <= 1 / 3,
    ),
    perClient(
      "lean server CPU per call at most 1.5× the raw proxy's",
      (c) => cpu(c, "lean") / cpu(c, "raw"),
      "×",
      (v) => v <= 1.5,
    ),
    perClient(
      "lean server's sequential added latency at most 1.5× the raw proxy's",
      (c) => leanAdded(c) / rawAdded(c),
      "×",
      (v) => v <= 1.5,
    ),
    perClient(
      "lean server adds at most 1 ms over direct (sequential median)",
      leanAdded,
      "ms",
      (v) => v <= 1,
    ),
    perClient(
      "lean server records at least 1.5× Portkey's answered calls per second",
      (c) => by[c].load.lean.recordedPerSecond / by[c].load.portkey.perSecond,
      "×",
      (v) => v >= 1.5,
    ),
    perClient(
      "Next `/v1` adds at most 1 ms over the bare Next route",
      (c) => by[c].seq.next - by[c].seq.bare,
      "ms",
      (v) => v <= 1,
    ),
    `- streams: the lean server relays the first byte at most 1 ms later than direct: ${f(leanRelayAdded)} ms, ${met(leanRelayAdded <= 1)} (Next /v1: ${f(nextRelayAdded)} ms)`,
  ];

  return `
## Gateway overhead: the servers, side by side (bench/gateway-overhead.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${postgresVersion}${extra.machineLoad ? ` · load average before the run: ${extra.machineLoad}` : ""}

One process calls the fake upstream (\`bench/fake-upstream.ts\`, its own process) directly and through six servers, each in its
own process on 127.0.0.1: a raw node:http proxy (\`bench/raw-proxy.ts\`: reads the body, \`JSON.parse\`, sets the model,
\`JSON.stringify\`, \`http.request\` on a keep-alive agent, pipes status, headers and body back; no key check, no ledger: **the
floor**), Tollgate's lean server (\`server/gateway.ts\`: a key without limits, and a governed key whose counters are in
PostgreSQL), a second lean server whose counters are in Redis (a key without limits, and a governed key), Portkey's gateway ${PORTKEY_VERSION} (\`--headless\`,
\`x-portkey-provider: openai\` with the fake as custom host), a bare Next app (\`bench/bare-next\`, its own \`next start\`) whose one
route just forwards the call (the baseline for \`/v1\`: same framework, no auth, no ledger), and the production Next server
(\`next start\`) at \`/v1\`. Every Tollgate path authenticates a tenant API key (one key each) and writes the ledger row and its
audit event to PostgreSQL (${extra.stored ? `a database already holding ${extra.stored.turns.toLocaleString("en-US")} turns and ${extra.stored.events.toLocaleString("en-US")} audit events before the run, \`BENCH_REUSE_DATABASE\`` : "a fresh database, demo seed"}) on every call, as it always does. Every path is measured with both
clients, whose requests differ (the SDK sends its \`x-stainless-*\` headers and its own user agent).

${CLIENTS.map(clientTable).join("\n\n")}

${streamsTable}

${governedTable}

Targets (this run):
${targetsList.join("\n")}

Ledger: ${ledgerLine} ${int(requestEvents)} \`request\` audit events. Failed calls over the whole run: ${PATHS.map((p) => `${p} ${errors[p]}`).join(", ")}.${errorTotal ? ` Last error: \`${lastError.slice(0, 200)}\`.` : ""}
${extra.load ? `\n${loadRunSection(extra.load)}\n` : ""}${extra.profile ? `\n${extra.profile}\n` : ""}
Method: ${WARMUP} warm-up calls per path and client, interleaved (and ${Math.floor(WARMUP / 10)} streamed ones). Non-streamed calls are
chat completions ("Say ok.") made with a plain \`fetch\` (the body serialised, the answer read as text and parsed) and with the
official \`openai\` client (${OPENAI_VERSION}, no retries). Sequential: ${ROUNDS} rounds in which every (client, path) pair makes
${PER_ROUND} calls one after another, the first pair rotating each round, so machine noise falls on all alike. Streamed: ${ROUNDS}
rounds of ${STREAMS} calls per path the same way, posted with raw node:http on a keep-alive agent (\`stream: true\`, \`include_usage\`);
the fake upstream sends the role chunk at once, stamped with its send time from \`process.hrtime.bigint()\` (CLOCK_MONOTONIC, one
clock for every process on the machine) in its id, and the rest ${process.env.BENCH_STREAM_PAUSE_MS ?? 20} ms later; the client notes the same clock when the
first body byte arrives. Relay time = arrival − send. Under load: ${int(CALLS)} calls per path and client, ${CONCURRENCY} at a time, in
${SLICES} slices of ${int(perSlice)}, the (client, path) pairs alternating; a slice lasts from its first call to its last answer. CPU is
read from \`/proc\` at each slice's start and end: the server's whole process group, PostgreSQL's processes for this database
(backends, WAL writer, checkpointer), every \`redis-server\` process (the machine's one Redis, which other work may also use), and
all of the run's processes together. Recorded/s: the ledger rows under the path's API key (\`sys_agent_turn\`), counted at the
slice's start and end, over the slice's time. Everything, the client, the upstream, the servers, PostgreSQL and Redis, shares the
${os.cpus().length} cores, so calls per second follow the run's total CPU per call rather than one server's ceiling; the ratios come from
one run on a shared machine. The run waits for the rest of the machine to be quiet before it measures; while it measured,
processes outside the benchmark used ${f(elsewherePct, 0)}% of one core on average${elsewherePct > 10 ? " (**the machine was not quiet: the figures are skewed**)" : ""}.
`;
}

function figuresOf(m: Measurements, c: Client): ClientFigures {
  const seq = Object.fromEntries(PATHS.map((p) => [p, median(m.sequential[c][p])])) as PerPath<number>;
  const rounds = m.roundMedians[c];
  return {
    seq,
    roundDiff: (a, b) => median(rounds[a].map((x, i) => x - rounds[b][i]!)),
    load: Object.fromEntries(PATHS.map((p) => [p, loadFigures(m.pooled[c][p])])) as PerPath<Load>,
  };
}

const ratioCell = (r: number, pass: (r: number) => boolean) => `${f(r, 2)}×, ${met(pass(r))}`;
const deltaCell = (d: number, pass: (d: number) => boolean) =>
  `${d >= 0 ? "+" : ""}${f(d)} ms, ${met(pass(d))}`;

function loadFigures(x: LoadTotals): Load {
  const n = x.latencies.length;
  return {
    perSecond: n / x.seconds,
    recordedPerSecond: x.recordedRows / x.seconds,
    p50: median(x.latencies),
    p95: quantile(x.latencies, 0.95),
    serverCpu: x.serverCpuMs / n,
    postgresCpu: x.postgresMs / n,
    redisCpu: x.redisMs / n,
    benchCpu: x.benchMs / n,
  };
}

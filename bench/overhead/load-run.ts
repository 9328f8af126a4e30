// The load run: the lean server alone, in a fresh process whose gateway does not retry (so upstream failures
// reach the caller), under BENCH_LOAD_CALLS calls (20,000) at BENCH_LOAD_CONCURRENCY (64), half of them
// streamed, one in ten failing upstream on purpose (500, 429, or a stream cut after its first chunk). What it
// checks: every answered call is exactly one ledger row, the ledger keeps up within its bounds, and the server's
// memory stays flat once warm.
import { cpuMs, groupRssKb, machineCpuMs } from "./cpu";
import { type BenchKey, type Handle, ledgerOfKey, rowsOfKey } from "./database";
import { waitForQuiet } from "./measure";
import { type ChildProcesses, sleep, waitReady } from "./processes";
import { type Outcome, outcomeOf, postChat, type RawTarget } from "./raw-call";
import { type Server, startLean, tollgateEnv } from "./servers";

const envCount = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
export const LOAD_PLAN = {
  calls: envCount("BENCH_LOAD_CALLS", 20_000),
  concurrency: envCount("BENCH_LOAD_CONCURRENCY", 64),
  /** The first share of the calls, after which the server's memory is its baseline. */
  warmupShare: 0.1,
  sampleMs: 250,
};

/** What a call asks the fake upstream for: an answer, or a failure (the `user` marker it reads). */
export const KINDS = [
  "json",
  "stream",
  "json, upstream 500",
  "json, upstream 429",
  "stream, upstream 500",
  "stream, upstream 429",
  "stream, cut after the first chunk",
] as const;
export type Kind = (typeof KINDS)[number];

/**
 * Call i's kind: even calls stream; one call in ten fails (the tenth of an even block of ten, the ninth of an
 * odd one, so failures alternate between JSON and streams), the failures taking turns among their kinds.
 */
export function kindOf(i: number): Kind {
  const block = Math.floor(i / 10);
  const stream = i % 2 === 0;
  if (i % 10 !== (block % 2 === 0 ? 9 : 8)) return stream ? "stream" : "json";
  const turn = Math.floor(block / 2);
  return stream
    ? (["stream, cut after the first chunk", "stream, upstream 500", "stream, upstream 429"] as const)[
        turn % 3
      ]!
    : (["json, upstream 500", "json, upstream 429"] as const)[turn % 2]!;
}

const MARKER: Record<Kind, string | undefined> = {
  json: undefined,
  stream: undefined,
  "json, upstream 500": "fail-500",
  "json, upstream 429": "fail-429",
  "stream, upstream 500": "fail-500",
  "stream, upstream 429": "fail-429",
  "stream, cut after the first chunk": "fail-cut",
};

export type LoadRun = {
  calls: number;
  concurrency: number;
  seconds: number;
  /** Calls by what they asked for, and what the caller got for each. */
  outcomes: Record<Kind, Partial<Record<Outcome, number>>>;
  answered: number;
  clientOk: number;
  /** 503 answers by error code (the codes503 among them, sent instead of calling, are no ledger rows). */
  codes503: Record<string, number>;
  ledger: {
    rows: number;
    byStatus: Record<string, number>;
    /** The ledger statuses of each kind's calls (matched by the answer's x-request-id). */
    statusByKind: Record<Kind, Record<string, number>>;
    expected: number;
    distinctIds: number;
    /** Answers without an x-request-id (they cannot be matched with a row). */
    withoutId: number;
    /** Answered calls (not refused) without a ledger row; rows without an answered call. */
    missing: string[];
    extra: string[];
  };
  lag: { maxCalls: number; maxMs: number; samples: number };
  /** From the last answer until the ledger held every expected row (null: it never did within 30 s). */
  catchUpMs: number | null;
  /** Half-way too, to tell a climb that levels off from one that goes on. */
  rss: { warmupKb: number; halfwayKb: number; maxKb: number; endKb: number };
  serverCpuMsPerCall: number;
  postgresCpuMsPerCall: number;
  /** What the fake upstream received meanwhile (no retries: one upstream call per call that got that far). */
  upstream: Record<string, number>;
  elsewherePct: number;
};

/** The 503s a server answers before the call starts, which are not ledger rows by design (features/v1/server/index.ts). */
const REFUSALS = new Set(["ledger_backlog_full", "shutting_down"]);

const say = (line: string) => process.stderr.write(`${line}\n`);

export async function loadRun(
  procs: ChildProcesses,
  upstream: Server,
  db: { url: string; name: string; handle: Handle; key: BenchKey },
  /** The run's other processes (servers idle meanwhile), so their CPU does not count as the machine's. */
  runPgids: number[],
): Promise<LoadRun> {
  const env = tollgateEnv(procs, upstream, db, "gateway.load.config.json", { retry: { maxRetries: 0 } });
  // Not profiled: its memory is one of the things measured.
  const lean = await startLean(procs, "lean-load", env, false);
  const auth = { authorization: `Bearer ${db.key.secret}` };
  await waitReady("lean server (load run)", lean, () => fetch(`${lean.url}/v1/models`, { headers: auth }));
  const target: RawTarget = { endpoint: new URL(`${lean.url}/v1/chat/completions`), headers: auth };
  const pgid = lean.child.pid!;
  const ownCpuMs = () => {
    const c = cpuMs(db.name, pgid, ...runPgids);
    const self = process.cpuUsage();
    return c.group + (Number.isNaN(c.postgres) ? 0 : c.postgres) + (self.user + self.system) / 1000;
  };
  await waitForQuiet(ownCpuMs);

  const { calls, concurrency, sampleMs } = LOAD_PLAN;
  say(`load run: ${calls} calls, ${concurrency} at a time …`);
  const stats0 = await upstreamStats(upstream);
  const outcomes = Object.fromEntries(KINDS.map((k) => [k, {}])) as LoadRun["outcomes"];
  const kindById = new Map<string, Kind>();
  const codes503: Record<string, number> = {};
  const refusedIds = new Set<string>();
  const answerTimes: number[] = [];
  let clientOk = 0;
  let withoutId = 0;
  const samples: { answered: number; rows: number; rssKb: number; lagMs: number }[] = [];

  const cpu0 = cpuMs(db.name, pgid);
  const start = { wall: performance.now(), machine: machineCpuMs(), own: ownCpuMs() };
  let running = true;
  const sampler = (async () => {
    while (running) {
      // Answers counted when the count of rows starts: a slow query must not look like ledger lag.
      const now = performance.now();
      const answered = answerTimes.length;
      const rows = await rowsOfKey(db.handle, db.key);
      // The age of the oldest answered call not yet written (rows are written about in the order calls end).
      const lagMs = rows < answered ? now - answerTimes[rows]! : 0;
      samples.push({ answered, rows, rssKb: groupRssKb(pgid), lagMs });
      await sleep(sampleMs);
    }
  })();

  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const kind = kindOf(next++);
        const stream = kind.startsWith("stream");
        const answer = await postChat(target, {
          model: "bench",
          messages: [{ role: "user", content: "Say ok." }],
          ...(MARKER[kind] ? { user: MARKER[kind] } : {}),
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        });
        const outcome = outcomeOf(answer, stream);
        outcomes[kind][outcome] = (outcomes[kind][outcome] ?? 0) + 1;
        if (answer.status === 0) continue;
        answerTimes.push(performance.now());
        if (outcome === "ok") clientOk++;
        if (answer.requestId) kindById.set(answer.requestId, kind);
        else withoutId++;
        if (answer.status === 503) {
          const code = answer.body.match(/"code"\s*:\s*"([^"]+)"/)?.[1] ?? "(no code)";
          codes503[code] = (codes503[code] ?? 0) + 1;
          if (answer.requestId && REFUSALS.has(code)) refusedIds.add(answer.requestId);
        }
      }
    }),
  );
  const lastAnswer = performance.now();
  const seconds = (lastAnswer - start.wall) / 1000;
  const cpu1 = cpuMs(db.name, pgid);
  const endKb = groupRssKb(pgid);
  running = false;
  await sampler;
  const elsewhereMs = machineCpuMs() - start.machine - (ownCpuMs() - start.own);

  const answered = answerTimes.length;
  const expected = answered - refusedIds.size;
  let catchUpMs: number | null = null;
  while (performance.now() - lastAnswer < 30_000) {
    if ((await rowsOfKey(db.handle, db.key)) >= expected) {
      catchUpMs = performance.now() - lastAnswer;
      break;
    }
    await sleep(20);
  }
  const stats1 = await upstreamStats(upstream);
  // Stopped the way an operator would (SIGTERM: drain, write what is left) before its rows are read.
  await procs.stopOne(lean, 15_000);
  const ledger = await ledgerOfKey(db.handle, db.key);
  const statusOf = new Map(ledger.rows.map((r) => [r.id, r.status]));
  const statusByKind = Object.fromEntries(KINDS.map((k) => [k, {}])) as LoadRun["ledger"]["statusByKind"];
  for (const [id, kind] of kindById) {
    const status = statusOf.get(id) ?? (refusedIds.has(id) ? "(refused, no row)" : "(no row)");
    statusByKind[kind][status] = (statusByKind[kind][status] ?? 0) + 1;
  }

  const warmupAt = samples.findIndex((s) => s.answered >= calls * LOAD_PLAN.warmupShare);
  const afterWarmup = warmupAt < 0 ? [] : samples.slice(warmupAt);
  return {
    calls,
    concurrency,
    seconds,
    outcomes,
    answered,
    clientOk,
    codes503,
    ledger: {
      rows: ledger.rows.length,
      byStatus: ledger.byStatus,
      statusByKind,
      expected,
      distinctIds: new Set(ledger.rows.map((r) => r.id)).size,
      withoutId,
      missing: [...kindById.keys()].filter((id) => !statusOf.has(id) && !refusedIds.has(id)),
      extra: ledger.rows.map((r) => r.id).filter((id) => !kindById.has(id)),
    },
    lag: {
      maxCalls: Math.max(0, ...samples.map((s) => s.answered - s.rows)),
      maxMs: Math.max(0, ...samples.map((s) => s.lagMs)),
      samples: samples.length,
    },
    catchUpMs,
    rss: {
      warmupKb: afterWarmup[0]?.rssKb ?? Number.NaN,
      halfwayKb: samples.find((s) => s.answered >= calls / 2)?.rssKb ?? Number.NaN,
      maxKb: Math.max(endKb, ...afterWarmup.map((s) => s.rssKb)),
      endKb,
    },
    serverCpuMsPerCall: (cpu1.group - cpu0.group) / answered,
    postgresCpuMsPerCall: (cpu1.postgres - cpu0.postgres) / answered,
    upstream: Object.fromEntries(Object.entries(stats1).map(([k, v]) => [k, v - (stats0[k] ?? 0)])),
    elsewherePct: Math.max(0, (100 * elsewhereMs) / (seconds * 1000)),
  };
}

async function upstreamStats(upstream: Server): Promise<Record<string, number>> {
  const res = await fetch(new URL("/stats", upstream.url));
  return (await res.json()) as Record<string, number>;
}

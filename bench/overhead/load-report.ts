// The load run's part of the section: what the calls asked and got, the ledger against the answers, its lag, the
// server's memory and CPU.
import { f, int, verdict } from "./format";
import { KINDS, LOAD_PLAN, type LoadRun } from "./load-run";

const MAX_ROWS = Number(process.env.TOLLGATE_LEDGER_MAX_ROWS ?? 1000);
const MAX_AGE_MS = Number(process.env.TOLLGATE_LEDGER_MAX_AGE_MS ?? 2000);

export function loadRunSection(r: LoadRun): string {
  const counts = (x: Record<string, number>) =>
    Object.entries(x)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}: ${int(n)}`)
      .join(", ");
  const asked = (k: (typeof KINDS)[number]) =>
    Object.values(r.outcomes[k]).reduce<number>((s, n) => s + (n ?? 0), 0);
  const kinds = KINDS.map(
    (k) =>
      `| ${k} | ${int(asked(k))} | ${counts(r.outcomes[k] as Record<string, number>)} | ${counts(r.ledger.statusByKind[k])} |`,
  );
  const { ledger, rss, lag } = r;
  const noAnswer = r.calls - r.answered;
  const successRows = ledger.byStatus.success ?? 0;
  const oneRowEach = ledger.rows === ledger.expected && !ledger.missing.length && !ledger.extra.length;
  const duplicates = ledger.rows - ledger.distinctIds;
  const growth = rss.maxKb / rss.warmupKb - 1;
  const mib = (kb: number) => f(kb / 1024, 1);
  const backlogFull = r.codes503.ledger_backlog_full ?? 0;
  const other503 = Object.entries(r.codes503).filter(([code]) => code !== "ledger_backlog_full");
  const ids = (xs: string[]) =>
    xs.length ? ` (${xs.slice(0, 3).join(", ")}${xs.length > 3 ? ", …" : ""})` : "";

  return `### Load run: the lean server alone, failures injected

${int(r.calls)} calls at ${r.concurrency} at a time (BENCH_LOAD_CALLS, BENCH_LOAD_CONCURRENCY) to a fresh lean server process whose
gateway config has \`"retry": {"maxRetries": 0}\`, with its own API key, posted with raw node:http: every other call streamed, one
in ten failing upstream on purpose (the fake upstream reads the body's \`user\`, which the lean server passes through: 500 or 429
with OpenAI's error body, or a stream cut after its first chunk), spread evenly. Answered: any HTTP answer (an error status, or a
stream that ends in an error event, counts); "cut short": a 200 whose body ended without \`[DONE]\` or an error event.

| the call asked for | calls | what the caller got | its ledger row's status |
| --- | --- | --- | --- |
${kinds.join("\n")}

| | |
| --- | --- |
| calls answered | ${int(r.answered)} of ${int(r.calls)}${noAnswer ? ` (**${int(noAnswer)} without an answer**)` : ""}, in ${f(r.seconds, 1)} s: ${f(r.answered / r.seconds, 0)}/s |
| ledger rows under the run's key | ${int(ledger.rows)} for ${int(ledger.expected)} answered calls${ledger.expected !== r.answered ? ` (${int(r.answered - ledger.expected)} refusals left out)` : ""}: ${verdict(oneRowEach)} (by status: ${counts(ledger.byStatus)}) |
| answered calls without a row · rows without an answered call · duplicate ids | ${int(ledger.missing.length)}${ids(ledger.missing)} · ${int(ledger.extra.length)}${ids(ledger.extra)} · ${int(duplicates)}${ledger.withoutId ? ` (**${int(ledger.withoutId)} answers without an x-request-id** could not be matched)` : ""} |
| client successes · \`success\` rows | ${int(r.clientOk)} · ${int(successRows)}: ${verdict(r.clientOk === successRows)} |
| ledger lag, max of ${lag.samples} samples every ${LOAD_PLAN.sampleMs} ms (calls answered − rows written) | ${int(lag.maxCalls)} calls (bound: ${int(MAX_ROWS)}) |
| oldest answered call not yet written, max | ${f(lag.maxMs, 0)} ms (bound: ${int(MAX_AGE_MS)} ms) |
| from the last answer until the ledger held every row | ${r.catchUpMs === null ? "**not within 30 s**" : `${f(r.catchUpMs, 0)} ms`} |
| server RSS (process group): after warm-up (${LOAD_PLAN.warmupShare * 100}% of the calls) · half-way · max after warm-up · at the end | ${mib(rss.warmupKb)} · ${mib(rss.halfwayKb)} · ${mib(rss.maxKb)} · ${mib(rss.endKb)} MiB: growth ${f(100 * growth, 1)}%, ${verdict(growth <= 0.1)} (at most 10%) |
| server process group CPU per call · PostgreSQL's | ${f(r.serverCpuMsPerCall)} ms · ${f(r.postgresCpuMsPerCall)} ms |
| 503 \`ledger_backlog_full\` · other 503s | ${int(backlogFull)} · ${other503.length ? counts(Object.fromEntries(other503)) : "0"} |
| what the fake upstream received | ${counts(r.upstream)} |

While it ran, processes outside the benchmark used ${f(r.elsewherePct, 0)}% of one core on average${r.elsewherePct > 10 ? " (**not quiet: the figures are skewed**)" : ""}.`;
}

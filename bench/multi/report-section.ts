// The BENCHMARKS.md section: the figures and their arithmetic, then per counter store its checks (pass/fail),
// what each phase of the run answered, each server's answers, the minute windows, the pause and the ledger.
import Big from "big.js";
import { budgetView } from "@/features/v1/server/budget-view";
import { estimateInputTokens } from "@/lib/pipeline/estimate";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "@/lib/pipeline/policy";
import { machine } from "../report";
import { type Analysis, PHASES } from "./checks";
import {
  type CounterBackend,
  callBody,
  callCost,
  INPUT_TOKENS,
  LIMITS,
  OUTPUT_TOKENS,
  PLAN,
  PRICE,
} from "./plan";

export type BackendResult = {
  backend: CounterBackend;
  /** Set when the run could not be made (a server did not start, the store was unreachable). */
  error?: string;
  analysis?: Analysis;
  seconds?: number;
  servers?: string[];
  kill?: { call: number; server: string };
  pause?: { call: number; window: { pausedAt: number; resumedAt: number } | null };
  /** The budget counter as the store holds it after the run (nano-dollars; null when not found). */
  counterNano?: number | null;
  /** Error lines the servers logged during the run, by message. */
  serverErrors?: Record<string, number>;
  startedAt?: number;
};

const usd = (b: Big | string) => `$${new Big(b).toFixed(6)}`;

/** The reservation today's estimate makes for one call (its input counted high, max_tokens of output). */
function reservation(outputTokens: number): { inputTokens: number; usd: Big } {
  const inputTokens = estimateInputTokens(budgetView("openai-chat", callBody(0, outputTokens) as never));
  return { inputTokens, usd: callCost(inputTokens, outputTokens) };
}

export function multiInstanceSection(results: BackendResult[], versions: string): string {
  const cost = callCost();
  const w = reservation(OUTPUT_TOKENS);
  const budget = new Big(LIMITS.dailyHardUsd);
  const inFlight = PLAN.concurrency;
  // Exact counters: the first refusal comes when spent + reserved + W > B; the other calls in flight each hold
  // W and will cost C, so what the admitted calls come to is at least B − W − (in-flight − 1)(W − C).
  const floor = budget.minus(w.usd).minus(w.usd.minus(cost).times(inFlight - 1));
  const uncapped = reservation(DEFAULT_MAX_OUTPUT_TOKENS);
  const uncappedFloor = budget.minus(uncapped.usd).minus(uncapped.usd.minus(cost).times(inFlight - 1));
  const lines = [
    "## Budgets and rate limits across replicas (bench/multi-instance.ts)",
    "",
    `${new Date().toISOString().slice(0, 10)} · ${machine()} · ${versions}`,
    "",
    `${PLAN.leanServers} lean servers and the Next app (\`next start\`) on one PostgreSQL database, ${PLAN.calls.toLocaleString("en-US")} calls at ${inFlight} at a time,`,
    "round robin over the five processes, one tenant with a hard daily budget and one key with a requests-per-minute",
    `limit. At call ${Math.round(PLAN.calls * PLAN.killAt) + 1} a lean server is killed (\`kill -9\`); at call ${Math.round(PLAN.calls * PLAN.pauseAt) + 1} the counter store stops answering for ${PLAN.pauseMs / 1000} s`,
    "(a TCP proxy in front of it stops forwarding: connections stay open and nothing moves).",
    "",
    "The figures, and why both limits bite:",
    `- every call is billed ${INPUT_TOKENS} input and ${OUTPUT_TOKENS} output tokens (the fake upstream's fixed usage) at $${PRICE.input} / $${PRICE.output} per 1M:`,
    `  C = ${INPUT_TOKENS} × ${PRICE.input} / 1M + ${OUTPUT_TOKENS} × ${PRICE.output} / 1M = ${usd(cost)}; it sends \`max_tokens: ${OUTPUT_TOKENS}\`, so today's reservation is`,
    `  W = ${w.inputTokens} estimated input tokens (counted high) × ${PRICE.input} / 1M + ${OUTPUT_TOKENS} × ${PRICE.output} / 1M = ${usd(w.usd)} (W/C = ${w.usd.div(cost).toFixed(3)});`,
    `- budget B = the cost of ${Math.round(PLAN.calls * PLAN.budgetShare).toLocaleString("en-US")} calls = ${usd(budget)} a day; requests per minute R = ${LIMITS.requestsPerMinute.toLocaleString("en-US")}. The calls sent to the`,
    `  killed server after it died never arrive (about ${Math.round(((1 - PLAN.killAt) * PLAN.calls) / (PLAN.leanServers + 1)).toLocaleString("en-US")}), so about ${Math.round(PLAN.calls - ((1 - PLAN.killAt) * PLAN.calls) / (PLAN.leanServers + 1)).toLocaleString("en-US")} reach a server: the budget runs out first, then the`,
    "  minute's requests (the run starts at the top of a UTC minute unless enough of the current one is left);",
    `- near the limit the leases shrink to one reservation each, as exact counters would: the first budget refusal comes when spent + reserved + W > B, while the other ${inFlight - 1} calls in flight`,
    `  hold W each and will cost C: the admitted calls come to at least B − W − ${inFlight - 1}(W − C) = ${usd(floor)} = ${floor.div(budget).times(100).toFixed(2)} % of B,`,
    `  so ≥ ${PLAN.minSpentShare * 100} % is possible by construction. A call without max_tokens would reserve the ${DEFAULT_MAX_OUTPUT_TOKENS}-token ceiling (W′ = ${usd(uncapped.usd)}, ${uncapped.usd.div(cost).toFixed(1)} C):`,
    `  ${inFlight} of those in flight hold ${uncapped.usd.times(inFlight).div(budget).times(100).toFixed(1)} % of B, the same floor would be B − W′ − ${inFlight - 1}(W′ − C) = ${uncappedFloor.div(budget).times(100).toFixed(1)} % of B,`,
    `  and no counter could promise ${PLAN.minSpentShare * 100} %.`,
    "",
  ];
  for (const r of results) lines.push(...backendLines(r));
  lines.push(
    "Method: the checks count from the client's side. Settled cost: every answer with status 200, its `usage` × the price",
    "(exact decimals); the ledger's: `sum(cost)` over the key's `sys_agent_turn` rows once every live server has been",
    "stopped with SIGTERM (which writes its batch; the killed server's unwritten batch is lost, counted as answered 200",
    "without a row). Spent before the first budget refusal: the cost of the 200 answers whose call reached the fake",
    "upstream (which a server does right after admitting it; each call is tagged in `user`) before the first budget",
    "refusal was answered. Requests per minute: each call in the",
    "window the server counted it in, from the answer's `x-ratelimit-reset-requests` (or a refusal's `Retry-After`),",
    "falling back to the ledger row's start minute (UTC); \"counted\" are the answers that carry the rate limit's headers",
    "(they passed it) plus every 200. The pause: calls answered after it began and sent before it ended (plus",
    `${PLAN.pauseGraceMs / 1000} s for the backlog) may be refused with a 503 or 429 and a code (fail closed); at any other time only 429`,
    "`budget_exceeded` or `rate_limit_exceeded` is a right refusal, and no answer is right only from the killed server.",
  );
  return `${lines.join("\n")}\n`;
}

function backendLines(r: BackendResult): string[] {
  const title =
    r.backend === "postgres"
      ? "### Counters in PostgreSQL (`usage_counter`, no REDIS_URL)"
      : "### Counters in Redis (REDIS_URL on every server, its own REDIS_PREFIX)";
  if (r.error || !r.analysis) return [title, "", `**Did not run**: ${r.error ?? "no result"}`, ""];
  const a = r.analysis;
  const out = [title, ""];
  out.push("| check | result | figure |", "| --- | --- | --- |");
  for (const c of a.checks) out.push(`| ${c.name} | ${c.pass ? "pass" : "**FAIL**"} | ${c.detail} |`);
  const answered = PHASES.reduce((s, p) => s + Object.values(a.outcomes[p]).reduce((x, y) => x + y, 0), 0);
  out.push(
    "",
    `${answered.toLocaleString("en-US")} calls in ${r.seconds!.toFixed(1)} s (${(answered / r.seconds!).toFixed(0)} a second) over ${r.servers!.join(", ")}; ${r.kill!.server} killed at call ${r.kill!.call + 1};`,
    `the store paused at call ${r.pause!.call + 1}${r.pause!.window ? ` from ${clock(r.pause!.window.pausedAt)} to ${clock(r.pause!.window.resumedAt)} UTC` : " (it never resumed within the run)"}.`,
    `Final spend: ${usd(a.clientSettledUsd)} (${new Big(a.clientSettledUsd).div(a.budgetUsd).times(100).toFixed(2)} % of the budget) by the client, ${usd(a.ledgerUsd)} in the ledger${r.counterNano !== undefined && r.counterNano !== null ? `, ${usd(new Big(r.counterNano).div(1e9))} on the budget's counter (spent and still reserved)` : ""}.`,
    "",
  );
  const outcomeNames = [...new Set(PHASES.flatMap((p) => Object.keys(a.outcomes[p])))].sort(byOutcome);
  out.push(`| answer | ${PHASES.join(" | ")} |`, `| --- | ${PHASES.map(() => "---:").join(" | ")} |`);
  for (const o of outcomeNames)
    out.push(`| ${o} | ${PHASES.map((p) => (a.outcomes[p][o] ?? 0).toLocaleString("en-US")).join(" | ")} |`);
  out.push(
    "",
    `| answer | ${r.servers!.join(" | ")} |`,
    `| --- | ${r.servers!.map(() => "---:").join(" | ")} |`,
  );
  const serverOutcomes = [...new Set(a.byServer.flatMap((s) => Object.keys(s ?? {})))].sort(byOutcome);
  for (const o of serverOutcomes)
    out.push(
      `| ${o} | ${r.servers!.map((_, i) => (a.byServer[i]?.[o] ?? 0).toLocaleString("en-US")).join(" | ")} |`,
    );
  out.push(
    "",
    `Minute windows (UTC; found by ${a.windowSources.header} answers' headers, ${a.windowSources.ledger} ledger rows, ${a.windowSources.client} client clocks):`,
    ...a.windows.map(
      (w) =>
        `- ${clock(w.minute * 60_000).slice(0, 5)}: ${w.admitted.toLocaleString("en-US")} counted by the rate limit, ${w.ok.toLocaleString("en-US")} answered 200, ${w.refused.toLocaleString("en-US")} refused by it`,
    ),
    "",
  );
  out.push(
    `| answer time (ms) | ${r.servers!.join(" | ")} |`,
    `| --- | ${r.servers!.map(() => "---:").join(" | ")} |`,
    ...(["p50", "p95", "max"] as const).map(
      (q) =>
        `| ${q} | ${a.latency.map((l) => (Number.isFinite(l[q]) ? l[q].toFixed(0) : "n/a")).join(" | ")} |`,
    ),
    "",
  );
  const p = a.inFlightDuringPause;
  out.push(
    `The pause: ${p.calls} calls were in flight at some moment of it (${p.sentDuring} of them sent after it began); ${p.ok} were answered 200,` +
      ` ${p.okWhilePaused} of them before the store came back, ${p.okWhilePausedSentDuring} of which were sent after it stopped (served without it);` +
      ` the slowest answer took ${(p.maxLatencyMs / 1000).toFixed(1)} s.`,
  );
  const errors = Object.entries(r.serverErrors ?? {}).sort((x, y) => y[1] - x[1]);
  out.push(
    errors.length
      ? `The servers logged: ${errors
          .slice(0, 5)
          .map(([m, n]) => `"${m}" ×${n}`)
          .join("; ")}.`
      : "The servers logged no errors.",
    `Ledger: ${a.ledger.rows.toLocaleString("en-US")} rows (${Object.entries(a.ledger.byStatus)
      .map(([s, n]) => `${s} ${n}`)
      .join(
        ", ",
      )}); ${a.ledger.okWithoutRow} answered 200 without a row, ${a.ledger.rowsWithoutAnswer} rows whose call got no answer.`,
    "",
  );
  return out;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const rank = (o: string) => (o === "200" ? 0 : o.startsWith("429") ? 1 : o.startsWith("no answer") ? 3 : 2);
const byOutcome = (x: string, y: string) => rank(x) - rank(y) || x.localeCompare(y);

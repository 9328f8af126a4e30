// governance_runs: the Runs page's aggregates (calls, tools, tokens, cost, duration, status) for the tenant's runs,
// or for one run with its calls in order.
import "server-only";
import { z } from "zod";
import type { PageSchema, Row, RunSummary } from "@/features/admin-tables/contracts";
import { withCards } from "@/lib/agent/cards";
import { defineTool, type Tool } from "@/lib/agent/tool";
import { formatMoney } from "@/lib/core/format/money";
import type { AgentCardInput } from "@/lib/turns/cards";
import { RUN_ID_MAX } from "@/lib/turns/run-id";
import { cellValue } from "./cells";
import { toolPageQuery } from "./page-query";
import { pageHref } from "./pages";
import { type Open, rangeParam, rowsThatFit, scopeWords } from "./tool-params";

const RUNS_PAGE = "agent-runs";
const LEDGER_PAGE = "agent-turns";
/** A run's calls listed in one answer; the ledger filtered by the run id has the rest. */
const CALLS_SHOWN = 15;

/** A run as the model reads it: the page's aggregates, money exact, and where to see it. */
const runAnswer = (run: RunSummary) => ({
  runId: run.runId,
  status: run.status,
  firstCall: run.firstAt,
  lastCall: run.lastAt,
  calls: run.calls,
  toolCalls: run.toolCalls,
  inputTokens: run.inputTokens,
  outputTokens: run.outputTokens,
  cost: cellValue(run.cost, "money"),
  ...(run.cost === null ? { costNote: "unknown: at least one call is unpriced" } : {}),
  durationMs: run.durationMs,
  sources: run.sources,
  replay: `/dev/agent/runs/${encodeURIComponent(run.runId)}`,
});

export function runsTool(pages: Map<string, PageSchema>, open: Open, now: () => Date): Tool | null {
  if (!pages.has(RUNS_PAGE)) return null;
  return defineTool({
    name: "governance_runs",
    description:
      "The tenant's agent runs (calls grouped by x-tollgate-run-id, or one drawer turn), as the Runs page shows them: calls, tool calls, tokens in and out, cost (USD, exact; unknown if any call is unpriced), duration, status (failed if any call failed, else running if any runs, else success) and sources. With `runId`: that run and its calls in the order they started. Without: the runs with the latest activity, filtered by status, source and range.",
    category: "governance",
    // Run ids and ledger rows hold what API callers wrote: text others control.
    readsOutsideText: true,
    roles: ["admin"],
    // Not "run" alone: a question about evaluation runs is governance_query's (the offline model picks by words).
    keywords: ["agent run", "run id", "run replay"],
    parameters: z.object({
      runId: z.string().min(1).max(RUN_ID_MAX).optional().describe("One run's id, exactly"),
      status: z.enum(["success", "failed", "running"]).optional(),
      source: z.enum(["api", "mcp", "drawer", "schedule"]).optional(),
      range: rangeParam,
      limit: z.number().int().min(1).max(50).default(20).describe("Runs to list, at most 50"),
    }),
    execute: async (args, ctx) => {
      const { page, provider, ctx: scope } = open(RUNS_PAGE, ctx);
      if (args.runId) {
        const found = await provider.detail(scope, args.runId);
        if (!found)
          return { runId: args.runId, found: false, note: "no call of this tenant has this run id" };
        const run = found.row as RunSummary;
        const ledger = open(LEDGER_PAGE, ctx);
        const { query, filters } = toolPageQuery(
          ledger.page,
          { filters: { runId: args.runId }, sort: "startedAt:asc", limit: CALLS_SHOWN },
          now(),
        );
        const calls = (await ledger.provider.rows(ledger.ctx, query)).rows.map((c: Row) => ({
          turnId: String(c.id),
          startedAt: String(c.startedAt),
          source: String(c.source),
          model: cellValue(c.servedModel ?? c.requestedModel, "text"),
          status: String(c.status),
          inputTokens: Number(c.inputTokens),
          outputTokens: Number(c.outputTokens),
          cost: cellValue(c.cost, "money"),
          latencyMs: c.latencyMs === null ? null : Number(c.latencyMs),
          tools: cellValue(c.tools, "text"),
        }));
        const ledgerLink = pageHref(ledger.page, filters);
        const result = {
          ...runAnswer(run),
          callsShown: calls.length,
          ...(run.calls > calls.length ? { note: `the first ${calls.length} of ${run.calls} calls` } : {}),
          callList: calls,
          ledger: ledgerLink,
        };
        const card: AgentCardInput = {
          kind: "kv",
          title: `Run ${run.runId}`,
          items: [
            { label: "Status", value: run.status },
            { label: "Calls", value: run.calls },
            { label: "Tool calls", value: run.toolCalls },
            { label: "Tokens in / out", value: `${run.inputTokens} / ${run.outputTokens}` },
            { label: "Cost", value: formatMoney(run.cost, { empty: "unknown" }) },
            { label: "Duration (ms)", value: run.durationMs },
            { label: "Sources", value: run.sources.join(", ") },
          ],
        };
        const links: AgentCardInput = {
          kind: "links",
          links: [
            { label: "Open the run replay", href: result.replay },
            ...(ledgerLink ? [{ label: "Its calls in the ledger", href: ledgerLink }] : []),
          ],
        };
        return withCards(result, card, links);
      }
      const { query, filters } = toolPageQuery(
        page,
        {
          filters: {
            ...(args.status ? { status: args.status } : {}),
            ...(args.source ? { source: args.source } : {}),
          },
          range: args.range,
          limit: args.limit,
        },
        now(),
      );
      const read = await provider.rows(scope, query);
      const all = (read.rows as RunSummary[]).map(runAnswer);
      const link = pageHref(page, filters);
      const head = { page: page.key, scope: scopeWords(args.range, page, filters), filters, link };
      // Kept under the answer's budget, so the model never reads half a run.
      const runs = all.slice(0, rowsThatFit(head, all));
      const more = runs.length < all.length || read.nextCursor !== null;
      const result = {
        ...head,
        runs,
        ...(more ? { note: "more runs match: narrow the filters or open the link" } : {}),
      };
      const card: AgentCardInput = {
        kind: "table",
        title: `Runs · ${result.scope}`,
        columns: [
          { key: "runId", label: "Run id", type: "text" },
          { key: "status", label: "Status", type: "text" },
          { key: "calls", label: "Calls", type: "number" },
          { key: "cost", label: "Cost", type: "money" },
          { key: "lastCall", label: "Last call", type: "datetime" },
        ],
        rows: runs.map((r) => ({
          runId: r.runId,
          status: r.status,
          calls: r.calls,
          cost: r.cost,
          lastCall: r.lastCall,
        })),
        ...(link ? { link: { label: "Open Runs with these filters", href: link } } : {}),
      };
      return withCards(result, card);
    },
  });
}

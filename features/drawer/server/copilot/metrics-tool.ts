// governance_metrics: a page's metric cards (totals, counts, averages) for a filter and a time range.
import "server-only";
import { z } from "zod";
import type { PageSchema } from "@/features/admin-tables/contracts";
import { withCards } from "@/lib/agent/cards";
import { defineTool, type Tool } from "@/lib/agent/tool";
import type { AgentCardInput } from "@/lib/turns/cards";
import { cellValue, FORMAT_TYPE } from "./cells";
import { toolPageQuery } from "./page-query";
import { pageHref } from "./pages";
import {
  enumOf,
  filtersParam,
  type Open,
  rangeParam,
  readable,
  scopeWords,
  segmentParam,
} from "./tool-params";

export function metricsTool(pages: Map<string, PageSchema>, open: Open, now: () => Date): Tool | null {
  const keys = [...pages.values()].filter((p) => p.metrics?.length).map((p) => p.key);
  if (!keys.length) return null;
  const fallback = keys.includes("agent-turns") ? "agent-turns" : keys[0]!;
  return defineTool({
    name: "governance_metrics",
    description:
      "The totals of a page's metric cards for a set of filters, exactly as the page shows them: e.g. the usage ledger's requests, tokens and total cost (agent-turns), or the cost rollups' (agent-cost). Money is USD, exact.",
    category: "governance",
    // Ledger rows hold what API callers wrote (prompts, endUser, tags): text others control.
    readsOutsideText: true,
    roles: ["admin"],
    keywords: ["total cost", "totals", "total", "metrics", "how many requests", "tokens used"],
    parameters: z.object({
      page: enumOf(keys).default(fallback).describe("A page with metric cards"),
      filters: filtersParam,
      range: rangeParam,
      segment: segmentParam,
    }),
    execute: async ({ page: key, ...args }, ctx) => {
      const { page, provider, ctx: scope } = open(key, ctx);
      const { query, filters } = toolPageQuery(page, args, now());
      const metrics = page.metrics ?? [];
      const values = await provider.metrics(scope, query, metrics);
      const link = pageHref(page, filters, args.segment);
      const scopeText = scopeWords(args.range, page, filters);
      const result = {
        page: page.key,
        scope: scopeText,
        filters,
        ...(args.segment ? { segment: args.segment } : {}),
        metrics: metrics.map((m) => ({
          metric: m.key,
          label: m.label.en,
          value: cellValue(values[m.key], FORMAT_TYPE[m.format]),
          ...(m.format === "money" ? { unit: "USD" } : {}),
        })),
        link,
      };
      const card: AgentCardInput = {
        kind: "kv",
        title: `${page.title.en} · ${scopeText}`,
        items: metrics.map((m) => ({ label: m.label.en, value: readable(values[m.key], m.format) })),
      };
      const links: AgentCardInput[] = link
        ? [{ kind: "links", links: [{ label: `Open ${page.title.en} with these filters`, href: link }] }]
        : [];
      return withCards(result, card, ...links);
    },
  });
}

// governance_query: a page's rows, filtered as the page filters them, as a table card and a link to the page.
import "server-only";
import { z } from "zod";
import type { PageSchema, Row } from "@/features/admin-tables/contracts";
import { withCards } from "@/lib/agent/cards";
import { defineTool, type Tool } from "@/lib/agent/tool";
import type { AgentCardInput } from "@/lib/turns/cards";
import { answerColumns, CARD_TYPE, type Cell, cellValue } from "./cells";
import { toolPageQuery } from "./page-query";
import { pageHref } from "./pages";
import {
  enumOf,
  filtersParam,
  type Open,
  rangeParam,
  rowsThatFit,
  scopeWords,
  segmentParam,
} from "./tool-params";

export function queryTool(pages: Map<string, PageSchema>, open: Open, now: () => Date): Tool | null {
  const keys = [...pages.keys()];
  if (!keys.length) return null;
  const fallback = pages.has("agent-turns") ? "agent-turns" : keys[0]!;
  return defineTool({
    name: "governance_query",
    description:
      "Read rows of one of this organisation's admin pages (the usage ledger agent-turns, the audit trail agent-audit, daily cost rollups agent-cost, prompts, evaluation runs and datasets, tools, admin changes, members) in the signed-in admin's tenant, through the page's own data source. Filter with the page's filters; at most 50 rows a call, `cursor` from the last answer reads on. Answers rows, the total count and a link to the page with the same filters.",
    category: "governance",
    // Ledger rows hold what API callers wrote (prompts, endUser, tags): text others control.
    readsOutsideText: true,
    roles: ["admin"],
    keywords: ["ledger", "usage ledger", "audit trail", "recent turns", "admin changes", "evaluation runs"],
    parameters: z.object({
      page: enumOf(keys).default(fallback).describe("The page to read"),
      filters: filtersParam,
      range: rangeParam,
      segment: segmentParam,
      sort: z.string().max(100).optional().describe("field:asc or field:desc, on a sortable column"),
      limit: z.number().int().min(1).max(50).default(20).describe("Rows to return, at most 50"),
      cursor: z
        .string()
        .max(2000)
        .optional()
        .describe("nextCursor from the previous answer, for the next rows"),
      columns: z
        .array(z.string().max(100))
        .max(20)
        .optional()
        .describe("Columns to return (the page's column fields); default: the page's default columns"),
    }),
    execute: async ({ page: key, columns, ...args }, ctx) => {
      const { page, provider, ctx: scope } = open(key, ctx);
      const { query, filters } = toolPageQuery(page, args, now());
      const shown = answerColumns(page, columns);
      const compact = (rows: Row[]) =>
        rows.map((row) => {
          const out: Record<string, Cell> = { [page.idField]: cellValue(row[page.idField], "text") };
          for (const c of shown) out[c.field] = cellValue(row[c.field], CARD_TYPE[c.cell]!);
          return out;
        });
      let read = await provider.rows(scope, query);
      const { count, approximate } = await provider.count(scope, query);
      const link = pageHref(page, filters, args.segment);
      const head = {
        page: page.key,
        scope: scopeWords(args.range, page, filters),
        filters,
        ...(args.segment ? { segment: args.segment } : {}),
        total: count,
        ...(approximate ? { totalIsAtLeast: true } : {}),
        link,
      };
      let rows = compact(read.rows);
      const fit = rowsThatFit(head, rows);
      // Fewer rows than asked for fit: read that many again, so the cursor continues right after the last shown.
      if (fit < rows.length) {
        read = await provider.rows(scope, { ...query, limit: fit });
        rows = compact(read.rows);
      }
      const result = {
        ...head,
        rows,
        nextCursor: read.nextCursor,
        ...(fit < query.limit && read.nextCursor
          ? { note: `${fit} rows fit in one answer: ask for fewer columns, or read on with nextCursor` }
          : {}),
      };
      const card: AgentCardInput = {
        kind: "table",
        title: `${page.title.en} · ${result.scope}`,
        columns: shown
          .slice(0, 20)
          .map((c) => ({ key: c.field, label: c.label.en, type: CARD_TYPE[c.cell]! })),
        rows,
        ...(link ? { link: { label: `Open ${page.title.en} with these filters`, href: link } } : {}),
      };
      return withCards(result, card);
    },
  });
}

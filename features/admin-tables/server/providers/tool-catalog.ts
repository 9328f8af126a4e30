import type { PageProvider, PageQuery, Row } from "@/features/admin-tables/contracts";
import type { ToolListing } from "@/lib/agent/registry";
import { unknownFilter } from "../query";
import { inMemoryProvider } from "./in-memory";

/** Every registered tool, from the registry in memory: the fourth page, proving the format. */
export function toolCatalogProvider(listTools: () => ToolListing[]): PageProvider {
  const all = (q: PageQuery): Row[] => {
    let rows: Row[] = listTools().map((tool) => ({
      id: tool.name,
      name: tool.name,
      toolSet: tool.toolSet,
      category: tool.category ?? "general",
      roles: tool.roles?.join(", ") ?? "everyone",
      hidden: tool.hidden ? "hidden" : "offered",
      timeoutMs: tool.timeoutMs ?? 30_000,
      description: tool.description,
      parameters: tool.schema.parameters,
    }));
    for (const [key, value] of Object.entries(q.filters)) {
      if (!value) continue;
      if (key === "name") rows = rows.filter((r) => String(r.name).includes(value.toLowerCase()));
      else if (key === "toolSet") rows = rows.filter((r) => r.toolSet === value);
      else throw unknownFilter(key);
    }
    if (q.segment) rows = rows.filter((r) => r.hidden === q.segment);
    const field = q.sort.field;
    const dir = q.sort.direction === "desc" ? -1 : 1;
    return rows.sort(
      (x, y) =>
        dir * String(x[field]).localeCompare(String(y[field])) ||
        String(x.name).localeCompare(String(y.name)),
    );
  };
  return inMemoryProvider({
    all,
    metric: (rows, measure) =>
      measure === "toolSets" ? new Set(rows.map((r) => r.toolSet)).size : rows.length,
    detail: (id) =>
      all({
        filters: {},
        segment: null,
        sort: { field: "name", direction: "asc" },
        cursor: null,
        limit: 1,
      }).find((r) => r.id === id) ?? null,
    async suggest(_ctx, field, q, limit) {
      if (field !== "name") return null;
      const needle = q.toLowerCase();
      return listTools()
        .map((tool) => tool.name)
        .filter((name) => name.toLowerCase().includes(needle))
        .sort()
        .slice(0, limit)
        .map((name) => ({ value: name, label: name }));
    },
  });
}

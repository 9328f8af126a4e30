import type { PageProvider, PageQuery, Row } from "@/features/admin-tables/contracts";
import type { ToolListing } from "@/lib/agent/registry";
import { cursorOffset, encodeCursor, unknownFilter } from "../query";

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
  return {
    async rows(_ctx, q) {
      const rows = all(q);
      const start = cursorOffset(q.cursor);
      const page = rows.slice(start, start + q.limit);
      const more = start + q.limit < rows.length;
      return { rows: page, nextCursor: more ? encodeCursor(["offset", String(start + q.limit)]) : null };
    },
    async count(_ctx, q) {
      return { count: all(q).length, approximate: false };
    },
    async metrics(_ctx, q, metrics) {
      const rows = all(q);
      return Object.fromEntries(
        metrics.map((m) => [
          m.key,
          m.measure === "toolSets" ? new Set(rows.map((r) => r.toolSet)).size : rows.length,
        ]),
      );
    },
    async series(_ctx, q, chart) {
      const counts = new Map<string, number>();
      for (const r of all(q))
        counts.set(String(r[chart.dimension]), (counts.get(String(r[chart.dimension])) ?? 0) + 1);
      const points = [...counts].map(([label, value]) => ({ label, value }));
      return { points: points.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label)) };
    },
    async detail(_ctx, id) {
      const row = all({
        filters: {},
        segment: null,
        sort: { field: "name", direction: "asc" },
        cursor: null,
        limit: 1,
      }).find((r) => r.id === id);
      return row ? { row } : null;
    },
    async *exportRows(_ctx, q) {
      yield* all(q);
    },
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
  };
}

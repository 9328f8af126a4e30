import type { PageProvider, PageQuery, Row } from "@/features/admin-tables/contracts";
import { cursorOffset, encodeCursor } from "../query";

/**
 * A page over rows held in memory (the tool registry, the gateway's routing): `all` gives the query's rows,
 * filtered and sorted; pages, counts, charts and the export follow from it, by offset.
 */
export function inMemoryProvider(source: {
  all: (q: PageQuery) => Row[];
  /** A metric's value over the query's rows, by its measure. */
  metric: (rows: Row[], measure: string) => number;
  detail: (id: string) => Row | null;
  suggest?: PageProvider["suggest"];
}): PageProvider {
  const { all } = source;
  return {
    async rows(_ctx, q) {
      const rows = all(q);
      const start = cursorOffset(q.cursor);
      const more = start + q.limit < rows.length;
      return {
        rows: rows.slice(start, start + q.limit),
        nextCursor: more ? encodeCursor(["offset", String(start + q.limit)]) : null,
      };
    },
    async count(_ctx, q) {
      return { count: all(q).length, approximate: false };
    },
    async metrics(_ctx, q, metrics) {
      const rows = all(q);
      return Object.fromEntries(metrics.map((m) => [m.key, source.metric(rows, m.measure)]));
    },
    async series(_ctx, q, chart) {
      const counts = new Map<string, number>();
      for (const r of all(q)) {
        const label = String(r[chart.dimension]);
        counts.set(label, (counts.get(label) ?? 0) + 1);
      }
      const points = [...counts].map(([label, value]) => ({ label, value }));
      return { points: points.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label)) };
    },
    async detail(_ctx, id) {
      const row = source.detail(id);
      return row ? { row } : null;
    },
    async *exportRows(_ctx, q) {
      yield* all(q);
    },
    ...(source.suggest ? { suggest: source.suggest } : {}),
  };
}

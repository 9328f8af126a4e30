import type { PageProvider, PageQuery, Row } from "@/features/admin-tables/contracts";
import type { RouteRow } from "@/lib/gateway/gateway";
import { cursorOffset, encodeCursor, unknownFilter } from "../query";

/**
 * The gateway's routing as this instance sees it (gateway.routingTable(), in memory): each alias's candidates,
 * their state, latency and error rate. The same for every tenant: aliases and deployments are the platform's.
 */
export function routingProvider(routes: () => RouteRow[]): PageProvider {
  const all = (q: PageQuery): Row[] => {
    let rows: Row[] = routes().map((r) => ({ ...r }));
    for (const [key, value] of Object.entries(q.filters)) {
      if (!value) continue;
      const needle = value.toLowerCase();
      if (key === "alias" || key === "provider" || key === "model")
        rows = rows.filter((r) => String(r[key]).toLowerCase().includes(needle));
      else throw unknownFilter(key);
    }
    if (q.segment) rows = rows.filter((r) => r.state === q.segment);
    const field = q.sort.field;
    const dir = q.sort.direction === "desc" ? -1 : 1;
    const value = (r: Row) => r[field] ?? "";
    return rows.sort(
      (x, y) =>
        dir *
          (typeof value(x) === "number" && typeof value(y) === "number"
            ? (value(x) as number) - (value(y) as number)
            : String(value(x)).localeCompare(String(value(y)))) ||
        String(x.alias).localeCompare(String(y.alias)) ||
        Number(x.position) - Number(y.position),
    );
  };
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
      const count = (pick: (r: Row) => boolean) => rows.filter(pick).length;
      return Object.fromEntries(
        metrics.map((m) => [
          m.key,
          m.measure === "aliases"
            ? new Set(rows.map((r) => r.alias)).size
            : m.measure === "cooling"
              ? count((r) => r.state !== "healthy")
              : rows.length,
        ]),
      );
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
      const row = routes().find((r) => r.id === id);
      return row ? { row: { ...row } } : null;
    },
    async *exportRows(_ctx, q) {
      yield* all(q);
    },
  };
}

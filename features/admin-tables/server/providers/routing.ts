import type { PageProvider, PageQuery, Row } from "@/features/admin-tables/contracts";
import type { RouteRow } from "@/lib/gateway/gateway";
import { unknownFilter } from "../query";
import { inMemoryProvider } from "./in-memory";

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
  return inMemoryProvider({
    all,
    metric: (rows, measure) =>
      measure === "aliases"
        ? new Set(rows.map((r) => r.alias)).size
        : measure === "cooling"
          ? rows.filter((r) => r.state !== "healthy").length
          : rows.length,
    detail: (id) => {
      const row = routes().find((r) => r.id === id);
      return row ? { ...row } : null;
    },
  });
}

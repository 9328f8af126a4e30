// The schema-driven pages' routes as the browser addresses them, and what they answer.
import type { Row } from "@/features/admin-tables/contracts";

export type RowsPage = { rows: Row[]; nextCursor: string | null; asOf?: string };
export type RowCount = { count: number; approximate: boolean };
export type Metrics = { metrics: Record<string, number | string | null> };
export type Series = { points: { label: string; value: number | string }[] };
export type Detail = { row: Row; events?: Row[] };

type Endpoint = "rows" | "count" | "metrics" | "series" | "export";

/** `/api/schema/<key>/<endpoint>?<params>`; params are the page query (sort, segment, f.*) plus extras. */
export function schemaUrl(
  key: string,
  endpoint: Endpoint,
  query: string,
  extra: Record<string, string> = {},
) {
  const params = new URLSearchParams(query);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const search = params.toString();
  return `/api/schema/${encodeURIComponent(key)}/${endpoint}${search ? `?${search}` : ""}`;
}

export const detailUrl = (key: string, id: string) =>
  `/api/schema/${encodeURIComponent(key)}/detail/${encodeURIComponent(id)}`;

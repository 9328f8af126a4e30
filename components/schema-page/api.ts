import { ApiError, errorFrom } from "@/components/agent-drawer/api";
import type { Row } from "@/lib/schema-pages/types";

export { ApiError };

export type RowsPage = { rows: Row[]; nextCursor: string | null };
export type RowCount = { count: number; approximate: boolean };
export type Metrics = { metrics: Record<string, number | string> };
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

export const isAbort = (error: unknown) => error instanceof DOMException && error.name === "AbortError";

/** GET a JSON route; non-2xx becomes an ApiError carrying the server's `{error: {message}}`. */
export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, headers: { accept: "application/json" } }).catch(
    (cause: unknown) => {
      if (isAbort(cause)) throw cause;
      throw new ApiError(0, cause instanceof Error ? cause.message : String(cause));
    },
  );
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as T;
}

export const toApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error));

/** Sends a row action (POST, PATCH, DELETE) with an optional JSON body; non-2xx becomes an ApiError. */
export async function sendJson(method: string, url: string, body?: unknown): Promise<void> {
  const res = await fetch(url, {
    method,
    headers: {
      accept: "application/json",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  }).catch((cause: unknown) => {
    throw new ApiError(0, cause instanceof Error ? cause.message : String(cause));
  });
  if (!res.ok) throw await errorFrom(res);
}

import type { ConversationSummary, HistoryMessage, LedgerTurn, ModelInfo } from "./types";

/** A failed call to one of our routes: its HTTP status (0 when the network failed) and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Turns a non-2xx response into an ApiError, using the `{error: {code, message}}` body when there is one. */
export async function errorFrom(res: Response): Promise<ApiError> {
  const body: unknown = await res.json().catch(() => null);
  const error =
    body && typeof body === "object" && "error" in body && body.error && typeof body.error === "object"
      ? (body.error as { code?: unknown; message?: unknown })
      : null;
  const message = typeof error?.message === "string" ? error.message : `${res.status} ${res.statusText}`;
  return new ApiError(res.status, message, typeof error?.code === "string" ? error.code : undefined);
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, {
    ...init,
    headers: init?.body ? { "content-type": "application/json", ...init.headers } : init?.headers,
  }).catch((cause: unknown) => {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, cause instanceof Error ? cause.message : String(cause));
  });
  if (!res.ok) throw await errorFrom(res);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

export const agentApi = {
  models: () => call<{ models: ModelInfo[]; defaultModel: string }>("/api/agent/models"),
  conversations: () => call<{ conversations: ConversationSummary[] }>("/api/agent/conversations"),
  conversation: (id: string, signal?: AbortSignal) =>
    call<{ conversation: ConversationSummary; messages: HistoryMessage[] }>(
      `/api/agent/conversations/${encodeURIComponent(id)}`,
      { signal },
    ),
  rename: (id: string, title: string) =>
    call<{ conversation: ConversationSummary }>(`/api/agent/conversations/${encodeURIComponent(id)}`, {
      method: "PATCH",
      body: JSON.stringify({ title }),
    }),
  remove: (id: string) =>
    call<void>(`/api/agent/conversations/${encodeURIComponent(id)}`, { method: "DELETE" }),
  turn: (turnId: string) => call<{ turn: LedgerTurn }>(`/api/agent/turns/${encodeURIComponent(turnId)}`),
  /** True when this server stopped the turn; false when it is not running here (409). */
  stop: async (turnId: string): Promise<boolean> => {
    const res = await fetch(`/api/agent/turns/${encodeURIComponent(turnId)}/stop`, { method: "POST" });
    return res.status === 202;
  },
};

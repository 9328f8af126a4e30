// The JSON the key and governance routes answer with, as the browser receives it (dates are strings), and the
// calls the admin screens make to them.

export type LimitValues = {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  /** USD as decimal strings, exactly as stored. */
  dailySoftUsd: string | null;
  dailyHardUsd: string | null;
  monthlySoftUsd: string | null;
  monthlyHardUsd: string | null;
};
export type LimitView = LimitValues & { spentToday: string; spentThisMonth: string };
export type LimitScope = "tenant" | "key" | "user";

export type ApiKey = {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type GovernanceSettings = {
  retentionDays: number;
  cacheAliases: string[];
  cacheTtlSeconds: number;
  maxOutputTokensDefault: number;
  aliases: string[];
  tenantLimits: LimitView | null;
  keys: (ApiKey & { limits: LimitView | null })[];
  users: { id: string; email: string; name: string; role: string; limits: LimitView | null }[];
};

export type TenantSettingsInput = {
  retentionDays: number;
  cacheAliases: string[];
  cacheTtlSeconds: number;
  maxOutputTokensDefault?: number;
};

/** A failed call: its HTTP status (0: the network failed), the server's message and, on 422, the fields. */
export class GovernanceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = "GovernanceError";
  }
}

/** A failed response as a GovernanceError: the server's `error.message` (else the status) and `error.fields`. */
async function errorOf(res: Response): Promise<GovernanceError> {
  const body = (await res.json().catch(() => null)) as {
    error?: { message?: unknown; fields?: unknown };
  } | null;
  const message =
    typeof body?.error?.message === "string" ? body.error.message : `${res.status} ${res.statusText}`;
  const fields =
    body?.error?.fields && typeof body.error.fields === "object"
      ? (body.error.fields as Record<string, string[]>)
      : {};
  return new GovernanceError(res.status, message, fields);
}

/**
 * One JSON request from the browser: `json`, when given, is the body; a failed answer or network error is thrown
 * as a GovernanceError (status 0 for the network), an abort as itself. Shared by the governance and admin calls.
 */
export async function call<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(path, {
    ...rest,
    headers: {
      accept: "application/json",
      ...(json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  }).catch((cause: unknown) => {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new GovernanceError(0, cause instanceof Error ? cause.message : String(cause));
  });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

export const governanceApi = {
  keys: (signal?: AbortSignal) => call<{ keys: ApiKey[] }>("/api/keys", { signal }),
  createKey: (name: string) =>
    call<{ secret: string; key: ApiKey }>("/api/keys", { method: "POST", json: { name } }),
  revokeKey: (id: string) =>
    call<{ key: ApiKey }>(`/api/keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
  settings: (signal?: AbortSignal) => call<GovernanceSettings>("/api/governance/settings", { signal }),
  saveSettings: (input: TenantSettingsInput) =>
    call<GovernanceSettings>("/api/governance/settings", { method: "PUT", json: input }),
  saveLimits: (scope: LimitScope, subjectId: string | undefined, values: LimitValues) =>
    call<{ limits: LimitValues | null }>("/api/governance/limits", {
      method: "PUT",
      json: { scope, ...(subjectId ? { subjectId } : {}), ...values },
    }),
};

export const isAbort = (error: unknown) => error instanceof DOMException && error.name === "AbortError";

export const toGovernanceError = (error: unknown) =>
  error instanceof GovernanceError
    ? error
    : new GovernanceError(0, error instanceof Error ? error.message : String(error));

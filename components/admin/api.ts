// The administration routes as the browser calls them (dates arrive as strings). Failures are GovernanceErrors:
// the HTTP status, the server's message and, on 422 and some 409s, the messages per field.
import { GovernanceError } from "@/components/governance/api";

export { GovernanceError as AdminError } from "@/components/governance/api";

export type Role = "member" | "admin";
export type Invitation = {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
  invitedBy: string;
};
export type Tenant = { id: string; name: string; slug: string; disabled: boolean };
export type SignInSettings = { ssoDomains: string[]; sso: string | null };
export type InvitationOffer = {
  tenantName: string;
  email: string;
  role: Role;
  expiresAt: string;
  accountExists: boolean;
};

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

async function call<T>(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}) {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    signal: init.signal,
    headers: {
      accept: "application/json",
      ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  }).catch((cause: unknown) => {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new GovernanceError(0, cause instanceof Error ? cause.message : String(cause));
  });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

const path = (template: string, id: string) => template.replace(":id", encodeURIComponent(id));

export const adminApi = {
  createTenant: (input: { name: string; slug?: string }) =>
    call<{ tenant: Tenant }>("/api/admin/tenants", { method: "POST", json: input }),
  invite: (input: { email: string; role: Role; expiresInDays: number }) =>
    call<{ invitation: Invitation; link: string }>("/api/admin/invitations", { method: "POST", json: input }),
  signInSettings: (signal?: AbortSignal) => call<SignInSettings>("/api/admin/sign-in-settings", { signal }),
  saveSignInSettings: (ssoDomains: string[]) =>
    call<SignInSettings>("/api/admin/sign-in-settings", { method: "PUT", json: { ssoDomains } }),
  changePassword: (input: { currentPassword: string; newPassword: string }) =>
    call<{ changed: true }>("/api/account/password", { method: "POST", json: input }),
  signOutOtherSessions: () => call<{ signedOutOthers: true }>("/api/account/sessions", { method: "DELETE" }),
  acceptInvitation: (token: string, input: { name?: string; password: string }) =>
    call<{ accepted: true; email: string }>(path("/api/invitations/:id/accept", token), {
      method: "POST",
      json: input,
    }),
  signIn: (email: string, password: string) =>
    call<{ ok: true; redirectTo: string }>("/api/login", { method: "POST", json: { email, password } }),
};

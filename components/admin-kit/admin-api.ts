// The administration routes as the browser calls them (dates arrive as strings). Failures are GovernanceErrors:
// the HTTP status, the server's message and, on 422 and some 409s, the messages per field.
import { call } from "@/components/admin-kit/governance-api";

export { GovernanceError as AdminError } from "@/components/admin-kit/governance-api";

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

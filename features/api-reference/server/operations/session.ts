import "server-only";
import { z } from "zod";
import { changePasswordInput } from "@/features/account/contracts";
import { acceptInvitationInput } from "@/features/members/contracts";
import { switchTenantInput } from "@/features/tenants/contracts";
import { loginSchema } from "@/lib/auth/sign-in";
import { ID, LATER } from "../examples";
import { answer, json, type Operation } from "../registry";
import { flag, tenantAccess, userContext } from "../shapes";

const TAG = "Session and account";

const token = z.object({
  token: z.string().describe("the invitation link's secret (its last path segment)"),
});

const me = {
  user: {
    id: ID.user,
    email: "ada@example.com",
    name: "Ada",
    isSuperAdmin: false,
    sessionEpoch: 3,
  },
  tenants: [
    {
      id: ID.tenant,
      name: "Acme",
      slug: "acme",
      role: "admin" as const,
      promptEditor: false,
      reviewer: false,
    },
  ],
  tenant: {
    id: ID.tenant,
    name: "Acme",
    slug: "acme",
    role: "admin" as const,
    promptEditor: false,
    reviewer: false,
  },
  role: "admin" as const,
};

export const sessionOperations: Operation[] = [
  {
    method: "POST",
    path: "/api/login",
    route: "app/api/login/route.ts",
    operationId: "signIn",
    tag: TAG,
    summary: "Sign in with email and password",
    description:
      "Sets the session cookie (`authjs.session-token`, `__Secure-authjs.session-token` over HTTPS) and answers where to go next. " +
      "Failed attempts are throttled per address and per email: 429 with `Retry-After` while blocked, one 401 message for every kind of wrong credentials.",
    guard: "public",
    body: json(
      loginSchema,
      { email: "ada@example.com", password: "correct horse battery staple", callbackUrl: "/dev/agent/turns" },
      "LoginInput",
    ),
    answers: {
      200: answer(
        "Signed in; the answer sets the session cookie.",
        z.object({ ok: z.literal(true), redirectTo: z.string() }),
        { ok: true, redirectTo: "/dev/agent/turns" },
      ),
    },
    errorDialect: "app",
    errors: { 401: "wrong email or password", 429: "too many failed attempts (Retry-After says how long)" },
  },
  {
    method: "GET",
    path: "/api/me",
    route: "app/api/me/route.ts",
    operationId: "getMe",
    tag: TAG,
    summary: "Who is signed in",
    description:
      "The user as the database knows them now, their tenants, the active tenant and their role in it.",
    guard: "user",
    answers: { 200: answer("The signed-in user.", userContext, me, "UserContext") },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/session/tenant",
    route: "app/api/session/tenant/route.ts",
    operationId: "switchTenant",
    tag: TAG,
    summary: "Switch the active tenant",
    description:
      "`tenantId: null` (the whole platform) is for the super admin only. Another tenant's id answers 404.",
    guard: "user",
    body: json(switchTenantInput, { tenantId: ID.tenant }, "SwitchTenantInput"),
    answers: {
      200: answer(
        "The tenant now active, with your role in it (both null for the platform view).",
        z.object({ tenant: tenantAccess.nullable(), role: z.enum(["member", "admin"]).nullable() }),
        { tenant: me.tenant, role: "admin" },
      ),
    },
    errorDialect: "app",
    errors: { 403: "null asked by someone who is not the super admin", 404: "not one of your tenants" },
  },
  {
    method: "GET",
    path: "/api/tenants/{tenantId}",
    route: "app/api/tenants/[tenantId]/route.ts",
    operationId: "getMyTenant",
    tag: TAG,
    summary: "A tenant you belong to",
    guard: "user",
    params: { path: z.object({ tenantId: z.string().describe("a tenant id") }) },
    answers: {
      200: answer(
        "The tenant with its member count and your role.",
        z.looseObject({
          id: z.uuid(),
          name: z.string(),
          slug: z.string(),
          disabled: z.boolean(),
          members: z.number().int(),
          role: z.enum(["member", "admin"]),
        }),
        { id: ID.tenant, name: "Acme", slug: "acme", disabled: false, members: 12, role: "admin" },
      ),
    },
    errorDialect: "app",
    errors: { 404: "not one of your tenants (its existence is not revealed)" },
  },
  {
    method: "POST",
    path: "/api/account/password",
    route: "app/api/account/password/route.ts",
    operationId: "changePassword",
    tag: TAG,
    summary: "Change your password",
    description: "The current password is required. Your other sessions end; this one stays signed in.",
    guard: "user",
    body: json(
      changePasswordInput,
      { currentPassword: "correct horse battery staple", newPassword: "a longer passphrase of mine" },
      "ChangePasswordInput",
    ),
    answers: { 200: answer("Changed.", flag("changed"), { changed: true }) },
    errorDialect: "app",
    errors: { 422: "the current password is wrong, or the new one breaks a rule (named in fields)" },
  },
  {
    method: "DELETE",
    path: "/api/account/sessions",
    route: "app/api/account/sessions/route.ts",
    operationId: "signOutOtherSessions",
    tag: TAG,
    summary: "Sign out your other sessions",
    description: "Every other browser and device of yours is signed out at its next request; this one stays.",
    guard: "user",
    answers: { 200: answer("Done.", flag("signedOutOthers"), { signedOutOthers: true }) },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/invitations/{token}",
    route: "app/api/invitations/[token]/route.ts",
    operationId: "lookUpInvitation",
    tag: TAG,
    summary: "What an invitation link offers",
    description: "Opened before the invitee has an account, so it needs no sign-in; the token is the secret.",
    guard: "public",
    params: { path: token },
    answers: {
      200: answer(
        "The tenant, email and role the link offers.",
        z.object({
          invitation: z.looseObject({
            tenantName: z.string(),
            email: z.string(),
            role: z.enum(["member", "admin"]),
            expiresAt: z.iso.datetime({ offset: true }),
            accountExists: z.boolean(),
          }),
        }),
        {
          invitation: {
            tenantName: "Acme",
            email: "grace@example.com",
            role: "member",
            expiresAt: LATER,
            accountExists: false,
          },
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "unknown link", 410: "used, revoked or expired" },
  },
  {
    method: "POST",
    path: "/api/invitations/{token}/accept",
    route: "app/api/invitations/[token]/accept/route.ts",
    operationId: "acceptInvitation",
    tag: TAG,
    summary: "Accept an invitation",
    description:
      "A new invitee sends `{name, password}` (the password they will sign in with), an existing account `{password}` (its own), " +
      "then signs in through POST /api/login. Checking an existing account's password is throttled like sign-in.",
    guard: "public",
    params: { path: token },
    body: json(
      acceptInvitationInput,
      { name: "Grace", password: "a passphrase of mine" },
      "AcceptInvitationInput",
    ),
    answers: {
      200: answer(
        "Accepted: sign in with this email.",
        z.object({ accepted: z.literal(true), email: z.string() }),
        {
          accepted: true,
          email: "grace@example.com",
        },
      ),
    },
    errorDialect: "app",
    errors: {
      401: "wrong password for the existing account",
      404: "unknown link",
      410: "used, revoked or expired",
      429: "too many failed attempts",
    },
  },
];

const NEXT_AUTH = "app/api/auth/[...nextauth]/route.ts";
const form = "application/x-www-form-urlencoded";
const redirect = (description: string) => ({
  description,
  headers: { location: "where the browser goes next" },
});
const csrfForm = z.object({
  csrfToken: z.string().describe("from GET /api/auth/csrf"),
  callbackUrl: z.string().optional(),
});

/** next-auth's own endpoints (Auth.js): the browser's sign-in with single sign-on, its session, sign-out. */
export const nextAuthOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/auth/session",
    route: NEXT_AUTH,
    operationId: "authSession",
    tag: TAG,
    summary: "The session as Auth.js sees it",
    description:
      "What the session cookie says (null when signed out). Which tenant and role apply is GET /api/me's.",
    guard: "public",
    answers: {
      200: answer(
        "The session, or null.",
        z
          .looseObject({
            user: z.looseObject({ email: z.string().optional(), name: z.string().optional() }),
            expires: z.string(),
          })
          .nullable(),
        { user: { email: "ada@example.com", name: "Ada" }, expires: LATER },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/auth/csrf",
    route: NEXT_AUTH,
    operationId: "authCsrf",
    tag: TAG,
    summary: "Auth.js's CSRF token",
    description: "Sent back as `csrfToken` with every form POST to /api/auth/*.",
    guard: "public",
    answers: {
      200: answer("The token (also set as a cookie).", z.object({ csrfToken: z.string() }), {
        csrfToken: "4c1c0b8f2a…",
      }),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/auth/providers",
    route: NEXT_AUTH,
    operationId: "authProviders",
    tag: TAG,
    summary: "The sign-in providers",
    guard: "public",
    answers: {
      200: answer(
        "Each provider by id: credentials, and the single sign-on provider when OIDC_ISSUER is set.",
        z.record(z.string(), z.looseObject({ id: z.string(), name: z.string(), type: z.string() })),
        { credentials: { id: "credentials", name: "Credentials", type: "credentials" } },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/auth/signin/{provider}",
    route: NEXT_AUTH,
    operationId: "authSignIn",
    tag: TAG,
    summary: "Start single sign-on",
    description: "An HTML form post; redirects to the provider's sign-in page.",
    guard: "public",
    params: { path: z.object({ provider: z.string().describe("the provider id, e.g. oidc") }) },
    body: { contentType: form, schema: csrfForm, example: { csrfToken: "4c1c0b8f2a…", callbackUrl: "/" } },
    answers: { 302: redirect("To the provider.") },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/auth/callback/{provider}",
    route: NEXT_AUTH,
    operationId: "authCallback",
    tag: TAG,
    summary: "The single sign-on provider's redirect back",
    description: "Sets the session cookie and redirects to the callback URL, or to /login with an error.",
    guard: "public",
    params: {
      path: z.object({ provider: z.string() }),
      query: z.object({ code: z.string().optional(), state: z.string().optional() }),
    },
    answers: { 302: redirect("Signed in (or refused), back into the app.") },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/auth/callback/credentials",
    route: NEXT_AUTH,
    operationId: "authCredentials",
    tag: TAG,
    summary: "Auth.js's password sign-in",
    description:
      "The form post behind Auth.js's own credentials sign-in, throttled exactly like POST /api/login (a 429 in the app's error envelope), so it is no way around the limit.",
    guard: "public",
    body: {
      contentType: form,
      schema: csrfForm.extend({ email: z.string(), password: z.string() }),
      example: {
        csrfToken: "4c1c0b8f2a…",
        email: "ada@example.com",
        password: "correct horse battery staple",
      },
    },
    answers: { 302: redirect("Signed in, or back to /login with an error.") },
    errorDialect: "app",
    errors: { 429: "too many failed sign-in attempts" },
  },
  {
    method: "POST",
    path: "/api/auth/signout",
    route: NEXT_AUTH,
    operationId: "authSignOut",
    tag: TAG,
    summary: "Sign out",
    description: "Revokes this session and clears its cookie.",
    guard: "public",
    body: { contentType: form, schema: csrfForm, example: { csrfToken: "4c1c0b8f2a…" } },
    answers: { 302: redirect("To /login.") },
    errorDialect: "app",
  },
];

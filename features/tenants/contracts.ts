// What the tenant and sign-in-settings routes take and answer, shared by the routes and the browser.
// Browser-safe: zod only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { z } from "@/lib/core/schema/zod";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const tenantName = z
  .string()
  .trim()
  .min(1, "name the tenant")
  .max(100, "at most 100 characters")
  .refine(hasNoNul, NO_NUL);

/** POST /api/admin/tenants */
export const createTenantInput = z.object({
  name: tenantName,
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(SLUG, "lower-case letters, digits and dashes, 1 to 40 characters")
    .optional(),
});

/** PATCH /api/admin/tenants/:id */
export const updateTenantInput = z
  .object({ name: tenantName.optional(), disabled: z.boolean().optional() })
  .refine(
    (v) => v.name !== undefined || v.disabled !== undefined,
    "send a new name, or disabled: true/false",
  );

/** An email or web domain, lower-cased: example.com, eu.example.com. */
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    "a domain such as example.com",
  );

/** PUT /api/admin/sign-in-settings */
export const signInSettingsInput = z.object({
  ssoDomains: z.array(domainName).max(20, "at most 20 domains"),
});

/** POST /api/session/tenant: the tenant to work in; null (the whole platform) is the super admin's only. */
export const switchTenantInput = z.object({ tenantId: z.uuid("tenantId must be a tenant id").nullable() });

/** A tenant as the platform admin sees it. */
export type TenantSummary = {
  id: string;
  name: string;
  slug: string;
  disabled: boolean;
  createdAt: Date;
  members: number;
  lastActivityAt: string | null;
  spendThisMonth: string;
};

/**
 * GET/PUT /api/admin/sign-in-settings: the domains, the single sign-on provider's name (null: none), and whether
 * this user may change the domains (the platform super admin only).
 */
export type SignInSettings = { ssoDomains: string[]; sso: string | null; canEdit: boolean };

/** PUT /api/admin/web-fetch-settings: web_fetch off, only to the listed domains (and their subdomains), or any. */
export const webFetchSettingsInput = z
  .object({
    mode: z.enum(["off", "allowlist", "any"], { error: "mode must be one of: off, allowlist, any" }),
    domains: z.array(domainName).max(100, "at most 100 domains").default([]),
  })
  .refine((v) => v.mode !== "allowlist" || v.domains.length > 0, {
    message: "list at least one domain for allowlist mode (or choose off)",
    path: ["domains"],
  });

/** GET/PUT /api/admin/web-fetch-settings */
export type WebFetchSettings = z.output<typeof webFetchSettingsInput>;

/** PUT /api/admin/code-run-settings: code_run off (the default), on without files, or on with the conversation's files. */
export const codeRunSettingsInput = z.object({
  mode: z.enum(["off", "on", "files"], { error: "mode must be one of: off, on, files" }),
});

/** GET/PUT /api/admin/code-run-settings */
export type CodeRunSettings = z.output<typeof codeRunSettingsInput>;

// The tenant and sign-in-settings routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, type Json, sendJson } from "@/lib/client/api";
import type {
  CodeRunSettings,
  codeRunSettingsInput,
  createTenantInput,
  SignInSettings,
  signInSettingsInput,
  TenantSummary,
  WebFetchSettings,
  webFetchSettingsInput,
} from "./contracts";

const SIGN_IN_SETTINGS = "/api/admin/sign-in-settings";
const WEB_FETCH_SETTINGS = "/api/admin/web-fetch-settings";
const CODE_RUN_SETTINGS = "/api/admin/code-run-settings";

export const tenantsApi = {
  create: (input: z.input<typeof createTenantInput>) =>
    sendJson<Json<{ tenant: TenantSummary }>>("POST", "/api/admin/tenants", input),
  signInSettings: (signal?: AbortSignal) => fetchJson<SignInSettings>(SIGN_IN_SETTINGS, signal),
  saveSignInSettings: (input: z.input<typeof signInSettingsInput>) =>
    sendJson<SignInSettings>("PUT", SIGN_IN_SETTINGS, input),
  webFetchSettings: (signal?: AbortSignal) => fetchJson<WebFetchSettings>(WEB_FETCH_SETTINGS, signal),
  saveWebFetchSettings: (input: z.input<typeof webFetchSettingsInput>) =>
    sendJson<WebFetchSettings>("PUT", WEB_FETCH_SETTINGS, input),
  codeRunSettings: (signal?: AbortSignal) => fetchJson<CodeRunSettings>(CODE_RUN_SETTINGS, signal),
  saveCodeRunSettings: (input: z.input<typeof codeRunSettingsInput>) =>
    sendJson<CodeRunSettings>("PUT", CODE_RUN_SETTINGS, input),
};

// The guardrails routes as the browser calls them.
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type {
  GuardrailPolicyView,
  GuardrailTestResult,
  guardrailPolicyInput,
  guardrailTestInput,
} from "./contracts";

const POLICY = "/api/governance/guardrails";

export const guardrailsApi = {
  get: (signal?: AbortSignal) => fetchJson<GuardrailPolicyView>(POLICY, signal),
  /** Replaces the whole policy; a webhook rule without `secret` keeps the one it has. */
  save: (input: z.input<typeof guardrailPolicyInput>) => sendJson<GuardrailPolicyView>("PUT", POLICY, input),
  test: (input: z.input<typeof guardrailTestInput>) =>
    sendJson<GuardrailTestResult>("POST", `${POLICY}/test`, input),
};

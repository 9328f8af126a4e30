import "server-only";
import type { Database } from "@/db";
import { processBus } from "@/lib/cluster";
import type { GuardrailPolicy } from "@/lib/guardrails/types";
import { processGuardrailCache } from "./policy-cache";
import { readGuardrailPolicy } from "./policy-store";

export { createTenantGuardrailEngine, type GuardrailEngineOptions } from "./engine";
export {
  announceGuardrailChange,
  GUARDRAIL_CACHE_MS,
  GUARDRAILS_CHANGED,
  GuardrailPolicyCache,
  processGuardrailCache,
} from "./policy-cache";
export { guardrailPolicyView, readGuardrailPolicy, saveGuardrailPolicy, viewOfPolicy } from "./policy-store";
export { testGuardrailText } from "./test-text";
export { engineTester, type GuardrailTester } from "./tester";

/**
 * A tenant's policy for a call (secrets included), from this process's cache: read at most once per tenant per
 * GUARDRAIL_CACHE_MS, dropped at once by a save on any instance the cluster bus reaches.
 */
export async function loadGuardrailPolicy(db: Database, tenantId: string): Promise<GuardrailPolicy> {
  const cache = processGuardrailCache();
  const bus = processBus();
  if (bus) cache.listenTo(bus);
  return cache.get(tenantId, () => readGuardrailPolicy(db, tenantId));
}

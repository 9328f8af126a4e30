import "server-only";
import type { z } from "zod";
import type { Executor } from "@/db";
import type { GuardrailTestResult, guardrailTestInput } from "@/features/guardrails/contracts";
import { readGuardrailPolicy } from "./policy-store";
import type { GuardrailTester } from "./tester";

/** POST /api/governance/guardrails/test: what the tenant's saved policy (read fresh) makes of a text at a stage. */
export async function testGuardrailText(
  db: Executor,
  tenantId: string,
  input: z.output<typeof guardrailTestInput>,
  tester: GuardrailTester,
): Promise<GuardrailTestResult> {
  return tester.testText(await readGuardrailPolicy(db, tenantId), input.stage, input.text);
}

import "server-only";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Database, Executor } from "@/db";
import { type GuardrailPolicyRow, guardrailPolicy } from "@/db/schema";
import type {
  GuardrailCheckView,
  GuardrailPolicyView,
  GuardrailRuleView,
  guardrailPolicyInput,
} from "@/features/guardrails/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, type FieldErrors } from "@/lib/core/errors/app-error";
import { compileLinear, UnsupportedPatternError } from "@/lib/core/text/linear-regex";
import type { GuardrailCheck, GuardrailPolicy, GuardrailRule } from "@/lib/guardrails/types";
import { announceGuardrailChange } from "./policy-cache";

/** The policy a row holds; a tenant without a row has no rules (a fresh object each time: callers may keep it). */
function policyOf(row: GuardrailPolicyRow | undefined): GuardrailPolicy {
  if (!row) return { rules: [] };
  // Stored only through guardrailPolicyInput, so the rows hold the contract's rules.
  const policy: GuardrailPolicy = { rules: row.rules as unknown as GuardrailRule[] };
  if (row.holdBackChars !== null) policy.holdBackChars = row.holdBackChars;
  return policy;
}

async function selectRow(db: Executor, tenantId: string, forUpdate = false) {
  const query = db.select().from(guardrailPolicy).where(eq(guardrailPolicy.tenantId, tenantId));
  const [row] = await (forUpdate ? query.for("update") : query);
  return row;
}

/** A tenant's policy as the engine applies it, secrets included (never answered to a browser). */
export async function readGuardrailPolicy(db: Executor, tenantId: string): Promise<GuardrailPolicy> {
  return policyOf(await selectRow(db, tenantId));
}

function checkView(check: GuardrailCheck): GuardrailCheckView {
  if (check.type !== "webhook") return check;
  const { secret, ...rest } = check;
  return { ...rest, secretSet: Boolean(secret) };
}

/** The policy as answered: each webhook's secret replaced by whether it has one. */
export function viewOfPolicy(policy: GuardrailPolicy, updatedAt: Date | null): GuardrailPolicyView {
  const rules: GuardrailRuleView[] = policy.rules.map((rule) => ({ ...rule, check: checkView(rule.check) }));
  const view: GuardrailPolicyView = { rules, updatedAt: updatedAt?.toISOString() ?? null };
  if (policy.holdBackChars !== undefined) view.holdBackChars = policy.holdBackChars;
  return view;
}

/** GET /api/governance/guardrails: the tenant's policy with its secrets hidden. */
export async function guardrailPolicyView(db: Executor, tenantId: string): Promise<GuardrailPolicyView> {
  const row = await selectRow(db, tenantId);
  return viewOfPolicy(policyOf(row), row?.updatedAt ?? null);
}

/** Every regex rule's pattern compiles on RE2, or a 422 names the rule, its path and RE2's reason. */
function assertPatternsCompile(rules: GuardrailRule[]): void {
  const fields: FieldErrors = {};
  const named: string[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.check.type !== "regex") continue;
    try {
      compileLinear(rule.check.pattern, rule.check.flags);
    } catch (error) {
      if (!(error instanceof UnsupportedPatternError)) throw error;
      fields[`rules.${i}.check.pattern`] = [error.message];
      named.push(`"${rule.name}" (${rule.id})`);
    }
  }
  if (named.length)
    throw new AppError(
      "validation_failed",
      `the pattern of rule ${named.join(", ")} cannot run: ${Object.values(fields)[0]?.[0]}`,
      { fields },
    );
}

/** A webhook rule sent without its secret keeps the one stored for the same rule id. */
function keepSecrets(rules: GuardrailRule[], before: GuardrailPolicy): GuardrailRule[] {
  const stored = new Map<string, string>();
  for (const rule of before.rules)
    if (rule.check.type === "webhook" && rule.check.secret) stored.set(rule.id, rule.check.secret);
  return rules.map((rule) => {
    if (rule.check.type !== "webhook" || rule.check.secret !== undefined) return rule;
    const secret = stored.get(rule.id);
    return secret ? { ...rule, check: { ...rule.check, secret } } : rule;
  });
}

/**
 * Replaces a tenant's policy (PUT): every regex must compile on RE2; webhook secrets left out are kept; the change
 * is recorded (secrets hidden) in the same transaction; every instance's cached copy is dropped.
 */
export async function saveGuardrailPolicy(
  db: Database,
  tenantId: string,
  input: z.output<typeof guardrailPolicyInput>,
  actor: Actor,
): Promise<GuardrailPolicyView> {
  assertPatternsCompile(input.rules);
  const saved = await db.transaction(async (tx) => {
    const previous = await selectRow(tx, tenantId, true);
    const before = policyOf(previous);
    const rules = keepSecrets(input.rules, before);
    const holdBackChars = input.holdBackChars ?? null;
    const [row] = await tx
      .insert(guardrailPolicy)
      .values({ tenantId, rules, holdBackChars, updatedBy: actor.id })
      .onConflictDoUpdate({
        target: guardrailPolicy.tenantId,
        set: { rules, holdBackChars, updatedBy: actor.id, updatedAt: new Date() },
      })
      .returning();
    const after = policyOf(row);
    const beforeView = previous ? viewOfPolicy(before, null) : null;
    const afterView = viewOfPolicy(after, null);
    // A secret changed shows as a change even though the log holds no secret.
    if (JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: "guardrails.updated",
        objectType: "guardrail_policy",
        objectId: tenantId,
        before: beforeView && { rules: beforeView.rules, holdBackChars: beforeView.holdBackChars ?? null },
        after: { rules: afterView.rules, holdBackChars: afterView.holdBackChars ?? null },
      });
    return viewOfPolicy(after, row?.updatedAt ?? null);
  });
  await announceGuardrailChange(tenantId);
  return saved;
}

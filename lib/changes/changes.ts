import "server-only";
import type { Executor } from "@/db";
import { adminChange } from "@/db/schema";
import { maskSecrets } from "@/lib/core/text/mask";

/** A database or a transaction of it: changes are recorded in the transaction that makes them. */

/** Who makes a change, and the request it came with. */
export type Actor = { id: string; email: string; requestId?: string };

export type ChangeObject =
  | "tenant"
  | "member"
  | "invitation"
  | "api_key"
  | "limits"
  | "tenant_settings"
  | "sign_in_settings"
  | "web_fetch_settings"
  | "code_run_settings"
  | "assumed_price"
  | "usage_rollup"
  | "prompt"
  | "eval_dataset"
  | "eval_run"
  | "mcp_server"
  | "guardrail_policy"
  | "run_ceiling"
  | "alert_rule"
  | "alert_channel"
  | "score_config"
  | "review_queue"
  | "saved_view";

export type Change = {
  tenantId: string;
  action: string;
  objectType: ChangeObject;
  objectId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

/** Values that never go into the change log, whatever the masking would make of them. */
const NEVER = new Set(["passwordHash", "secretHash", "tokenHash", "secret", "token", "password"]);
const stripped = (value: Record<string, unknown> | null) =>
  value === null
    ? null
    : maskSecrets(
        Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => !NEVER.has(k))
            .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
        ),
      );

/** Writes one row of the admin-change log: actor, tenant, action, object, before and after (masked), request. */
export async function recordChange(db: Executor, actor: Actor, change: Change): Promise<void> {
  await db.insert(adminChange).values({
    tenantId: change.tenantId,
    actorId: actor.id,
    actorEmail: actor.email,
    action: change.action,
    objectType: change.objectType,
    objectId: change.objectId,
    before: stripped(change.before),
    after: stripped(change.after),
    requestId: actor.requestId ?? null,
  });
}

/** The actor of a guarded request. */
export const actorOf = (auth: { user: { id: string; email: string } }, requestId: string): Actor => ({
  id: auth.user.id,
  email: auth.user.email,
  requestId,
});

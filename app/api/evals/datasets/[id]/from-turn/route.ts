import { getDb } from "@/db";
import { fromTurnInput } from "@/features/evals/contracts";
import { evalAccess } from "@/features/evals/server/access";
import { appendItems } from "@/features/evals/server/datasets";
import { itemFromTurn } from "@/features/evals/server/from-turn";
import { isTenantAdmin, withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

type Params = { id: string };

/**
 * "Add to dataset" on a ledger turn: a drawer turn's conversation up to it (its answer expected), or an API
 * call's request messages (its answer expected, when recorded). `{turnId}` → the item added. Tenant admins may use
 * any turn of the tenant; prompt editors only their own.
 */
export const POST = withUser<Params>(async (req, { auth, params }) => {
  const { turnId } = await readJson(req, fromTurnInput);
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  // Admins read the whole ledger; a prompt editor only their own turns (another's is 404, so ids say nothing).
  const item = await itemFromTurn(db, tenantId, turnId, { userId: auth.user.id, admin: isTenantAdmin(auth) });
  const { ids } = await appendItems(db, tenantId, params.id, [
    {
      input: item.input,
      ...(item.expected !== null ? { expected: item.expected } : {}),
      metadata: item.metadata,
      sourceTurnId: turnId,
    },
  ]);
  return Response.json({ id: ids[0], ...item }, { status: 201 });
});

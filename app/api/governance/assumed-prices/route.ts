import { getDb } from "@/db";
import { assumedPriceInput } from "@/features/limits/contracts";
import { saveAssumedPrice } from "@/features/limits/server/assumed-prices";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/**
 * Sets the price this tenant assumes for a model the price catalog does not know (`price: null` removes it), so
 * calls it serves are counted against hard budgets instead of refused.
 */
export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, assumedPriceInput);
  const saved = await saveAssumedPrice(
    await getDb(),
    container().gateway.config,
    tenant.id,
    input,
    actorOf(auth, requestId),
  );
  return Response.json({ assumedPrice: saved });
});

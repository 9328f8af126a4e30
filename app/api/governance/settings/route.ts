import { getDb } from "@/db";
import { tenantSettingsInput } from "@/features/limits/contracts";
import { unpricedModels } from "@/features/limits/server/assumed-prices";
import { readGovernanceSettings, saveTenantSettings } from "@/features/limits/server/settings";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

const aliases = () => Object.keys(container().gateway.config.models);
const gatewayFacts = () => ({
  aliases: aliases(),
  unpricedModels: unpricedModels(container().gateway.config),
});

/** The active tenant's retention, cache, limits and budgets, with each budget's spend so far. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const settings = await readGovernanceSettings(await getDb(), container().stores.counters, tenant.id);
  return Response.json({ ...settings, ...gatewayFacts() });
});

/** Sets the tenant's retention and response-cache settings. */
export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, tenantSettingsInput);
  const db = await getDb();
  await saveTenantSettings(db, tenant.id, input, aliases(), actorOf(auth, requestId));
  return Response.json({
    ...(await readGovernanceSettings(db, container().stores.counters, tenant.id)),
    ...gatewayFacts(),
  });
});

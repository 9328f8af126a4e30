import { withUser } from "@/lib/auth/guards";
import { pricesInfo } from "@/lib/gateway";
import { container } from "@/server/container";

/** The model aliases a user can pick in the drawer, and the date the prices their calls are charged at are as of. */
export const GET = withUser(async () => {
  const gateway = container().gateway;
  return Response.json({
    models: gateway.models(),
    defaultModel: gateway.defaultModel,
    prices: pricesInfo(gateway.config),
  });
});

import { withUser } from "@/lib/auth/guards";
import { getGateway } from "@/lib/gateway";

/** The model aliases a user can pick in the drawer. */
export const GET = withUser(async () => {
  const gateway = getGateway();
  return Response.json({ models: gateway.models(), defaultModel: gateway.defaultModel });
});

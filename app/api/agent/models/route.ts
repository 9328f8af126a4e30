import { withUser } from "@/lib/auth/guards";
import { container } from "@/lib/container";

/** The model aliases a user can pick in the drawer. */
export const GET = withUser(async () => {
  const gateway = container().gateway;
  return Response.json({ models: gateway.models(), defaultModel: gateway.defaultModel });
});

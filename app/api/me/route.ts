import { withUser } from "@/lib/auth/guards";

export const GET = withUser(async (_req, { auth }) => Response.json(auth));

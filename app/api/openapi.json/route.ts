import { openApiDocument } from "@/features/api-reference/server";
import { route } from "@/lib/http/route";

/**
 * The OpenAPI 3.1 document of every endpoint (features/api-reference). Public: it describes the code, the same for
 * every deployment, and never a tenant's data; API-key clients and SDK generators read it without a session.
 */
export const GET = route(async () =>
  Response.json(openApiDocument(), { headers: { "cache-control": "public, max-age=300" } }),
);

import { getHealth } from "@/lib/health";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const health = await getHealth();
  return Response.json(health, { status: health.status === "ok" ? 200 : 503 });
});

import { container } from "@/server/container";

/** Prometheus metrics (text format); with METRICS_TOKEN set, only with `Authorization: Bearer <token>`. */
export async function GET(req: Request): Promise<Response> {
  const answer = await container().telemetry.scrape(req.headers.get("authorization"));
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

export const dynamic = "force-dynamic";

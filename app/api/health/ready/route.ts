import { readinessAnswer } from "@/lib/probes";

export const dynamic = "force-dynamic";

/** Readiness: 200 when this instance should get traffic; 503 while starting, draining or without its database. */
export async function GET() {
  const { status, headers, body } = await readinessAnswer();
  return new Response(body, { status, headers });
}

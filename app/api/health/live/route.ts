import { livenessAnswer } from "@/lib/probes";

export const dynamic = "force-dynamic";

/** Liveness: 200 while the process answers at all (no database, no sign-in). */
export function GET() {
  const { status, headers, body } = livenessAnswer();
  return new Response(body, { status, headers });
}

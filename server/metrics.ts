import type { IncomingMessage, ServerResponse } from "node:http";
import type { Telemetry } from "@/lib/observability";

/** Whether a request is for /metrics (the lean server answers it beside /v1). */
export const isMetrics = (incoming: IncomingMessage): boolean =>
  (incoming.method === "GET" || incoming.method === "HEAD") && /^\/metrics\/?(\?|$)/.test(incoming.url ?? "");

/** /metrics on the lean server: the same answer as the app's (token rules included). */
export async function serveMetrics(
  telemetry: Telemetry,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const answer = await telemetry.scrape(incoming.headers.authorization);
  outgoing.writeHead(answer.status, {
    ...answer.headers,
    "content-length": String(Buffer.byteLength(answer.body)),
  });
  outgoing.end(incoming.method === "HEAD" ? undefined : answer.body);
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { livenessAnswer, readinessAnswer } from "@/lib/probes";

/**
 * The lean server's probes: `GET /health/live` (200 while the process answers) and `GET /health/ready` (200 when
 * it should get traffic; 503 while starting, draining or without its database). True when it answered.
 */
export function serveProbe(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
  if (incoming.method !== "GET" && incoming.method !== "HEAD") return false;
  const path = (incoming.url ?? "/").split("?", 1)[0];
  if (path === "/health/live") {
    send(outgoing, livenessAnswer(), incoming.method === "HEAD");
    return true;
  }
  if (path === "/health/ready") {
    void readinessAnswer().then(
      (answer) => send(outgoing, answer, incoming.method === "HEAD"),
      () => send(outgoing, { status: 503, headers: {}, body: "" }, false),
    );
    return true;
  }
  return false;
}

function send(
  outgoing: ServerResponse,
  answer: { status: number; headers: Record<string, string>; body: string },
  headOnly: boolean,
): void {
  outgoing.writeHead(answer.status, {
    ...answer.headers,
    "content-length": String(Buffer.byteLength(answer.body)),
  });
  outgoing.end(headOnly ? undefined : answer.body);
}

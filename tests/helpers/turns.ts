// Sending a drawer turn in-process, as the drawer does: POST /api/agent/turns as whoever
// tests/helpers/session.ts signed in. Read the answer with readSse (tests/helpers/sse.ts).
import * as turnsRoute from "@/app/api/agent/turns/route";

/** POST /api/agent/turns with a JSON body (and any extra headers, e.g. a traceparent): the streamed response. */
export function postTurn(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return turnsRoute.POST(
    new Request("http://app/api/agent/turns", {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...headers },
    }),
    { params: Promise.resolve({}) },
  );
}

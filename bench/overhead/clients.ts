// The two clients every non-streamed call is measured with: a plain `fetch` (what a hand-written integration
// does) and the official `openai` client (what most applications use). They send different headers (the SDK adds
// its x-stainless-* set, a user agent, retries off here) and read the answer differently, so a server can cost
// differently under each: the report shows both.
import OpenAI from "openai";

export const CLIENTS = ["fetch", "openai"] as const;
export type Client = (typeof CLIENTS)[number];

/**
 * Where a path's chat completions go: its base URL (ending in /v1 or the route's own), key, extra headers, model;
 * with `endUsers`, each call names the next of that many end users (`bench-user-<n>`): the fetch client in the
 * x-tollgate-end-user header, the openai client in the body's `user` field, as an app would with either.
 */
export type Endpoint = {
  baseURL: string;
  apiKey: string;
  headers: Record<string, string>;
  model: string;
  endUsers?: number;
};

/** One chat completion ("Say ok."): resolves when the answer says "ok", throws otherwise. */
export type OneCall = () => Promise<void>;

export function callerOf(client: Client, endpoint: Endpoint): OneCall {
  const messages = [{ role: "user" as const, content: "Say ok." }];
  const check = (content: unknown, whole: unknown) => {
    if (content !== "ok") throw new Error(`unexpected answer: ${JSON.stringify(whole).slice(0, 300)}`);
  };
  let calls = 0;
  const nextEndUser = () => (endpoint.endUsers ? `bench-user-${calls++ % endpoint.endUsers}` : undefined);
  if (client === "openai") {
    const sdk = new OpenAI({
      apiKey: endpoint.apiKey,
      baseURL: endpoint.baseURL,
      maxRetries: 0,
      defaultHeaders: endpoint.headers,
    });
    return async () => {
      const user = nextEndUser();
      const res = await sdk.chat.completions.create({
        model: endpoint.model,
        messages,
        ...(user ? { user } : {}),
      });
      check(res.choices[0]?.message.content, res);
    };
  }
  const url = `${endpoint.baseURL}/chat/completions`;
  const headers = {
    ...endpoint.headers,
    "content-type": "application/json",
    authorization: `Bearer ${endpoint.apiKey}`,
  };
  return async () => {
    const user = nextEndUser();
    const res = await fetch(url, {
      method: "POST",
      headers: user ? { ...headers, "x-tollgate-end-user": user } : headers,
      body: JSON.stringify({ model: endpoint.model, messages }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
    const json = JSON.parse(text) as { choices?: { message?: { content?: string } }[] };
    check(json.choices?.[0]?.message?.content, json);
  };
}

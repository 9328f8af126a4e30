import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

type WebHandler = (req: Request) => Promise<Response>;

/**
 * App route handlers (`(Request) => Response`, by method) behind node:http on a free port, as Next serves them: the
 * body streams in, the request's signal aborts when the client leaves, the answer streams out. For clients that
 * need a real URL (an MCP client's transport).
 */
export async function serveRoutes(routes: Partial<Record<string, WebHandler>>) {
  const server = createServer((incoming, outgoing) => {
    void serveOne(routes, incoming, outgoing).catch(() => outgoing.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serveOne(
  routes: Partial<Record<string, WebHandler>>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const handler = routes[incoming.method ?? "GET"];
  if (!handler) {
    outgoing.writeHead(405).end();
    return;
  }
  const left = new AbortController();
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) left.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  const req = new Request(`http://${incoming.headers.host}${incoming.url}`, {
    method: incoming.method,
    headers,
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : undefined,
    signal: left.signal,
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
  const res = await handler(req);
  outgoing.writeHead(res.status, Object.fromEntries(res.headers));
  if (!res.body) {
    outgoing.end();
    return;
  }
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) outgoing.write(chunk);
  outgoing.end();
}

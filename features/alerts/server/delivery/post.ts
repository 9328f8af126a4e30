import "server-only";
import type { BlockList } from "node:net";
import { type Resolver, resolveAllowed } from "@/lib/agent/toolsets/web/net-guard";
import { contentDecoder, pinnedRequest } from "@/lib/agent/toolsets/web/pinned-client";

/** How an alert's POST goes out: through the outbound address guard, bounded in time and in what it reads. */
export type PostOptions = {
  /** Ranges the operator opens despite the address policy (WEB_FETCH_ALLOW), as for web_fetch and webhooks. */
  allow: BlockList;
  /** Host name resolution; tests inject one. */
  resolver?: Resolver;
  /** Default 10 s, from the request to the last byte read. */
  timeoutMs?: number;
};

/** Of an answer's body, only this much is read: enough for an error message. */
export const MAX_ANSWER_BYTES = 4096;

/**
 * POSTs `body` to a tenant's URL: the host is resolved and checked by the address guard (a tenant cannot make
 * Tollgate reach its own network) and the socket pinned to the checked address (DNS cannot swap it). Answers the
 * status and at most 4 KB of the body; a refusal, a network error or the timeout throws.
 */
export async function guardedPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  if (target.protocol !== "https:" && target.protocol !== "http:")
    throw new Error(`refused: only http and https URLs, not ${target.protocol}`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const checked = await resolveAllowed(target.hostname, {
      allow: options.allow,
      resolver: options.resolver,
      signal,
    });
    const res = await pinnedRequest(target, checked, signal, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Tollgate-Alerts/1",
        ...headers,
        "content-length": String(Buffer.byteLength(body)),
      },
      body,
    });
    const decoder = contentDecoder(res);
    if (decoder) res.on("error", (error) => decoder.destroy(error));
    const stream = decoder ? res.pipe(decoder) : res;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ANSWER_BYTES) break;
    }
    res.destroy();
    const text = Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString("utf8");
    return { status: res.statusCode ?? 502, text };
  } catch (error) {
    if (signal.aborted) throw new Error(`no answer within ${timeoutMs / 1000} s`);
    throw error;
  }
}

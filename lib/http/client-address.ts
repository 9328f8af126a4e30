import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";

/**
 * The header that carries the TCP peer's address from the socket to route handlers. Next gives handlers no
 * socket, and its own `x-forwarded-for` keeps whatever the client sent, so a hook on Node's HTTP server writes
 * this header on every request before Next sees it, overwriting any value the client sent.
 */
export const SOCKET_ADDRESS_HEADER = "x-tollgate-socket-address";

const MAX_TRUSTED_HOPS = 10;

type Anchor = { socketAddressHook?: boolean; trustProxyWarned?: string };
const state = processSlot<Anchor>("http.clientAddress", () => ({}));

/** The environment variables these functions read (process.env, or a test's own). */
export type Env = Record<string, string | undefined>;

/**
 * Installs the hook once per process (`instrumentation.ts` calls it at start). It uses Node's public
 * `http.server.request.start` diagnostics channel, which fires for every request before the server's own
 * request listener, so the header is in place before Next copies the headers into its Request.
 */
export function recordSocketAddresses(): void {
  if (state.socketAddressHook) return;
  state.socketAddressHook = true;
  subscribe("http.server.request.start", (message) => {
    const request = (message as { request?: IncomingMessage }).request;
    if (request) request.headers[SOCKET_ADDRESS_HEADER] = normalizeAddress(request.socket?.remoteAddress);
  });
}

/** How many proxies in front of Tollgate may be believed about the client (`TRUST_PROXY`, 0 when unset). */
export function trustedProxyHops(env: Env = process.env): number {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw) return 0;
  const hops = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isInteger(hops) && hops <= MAX_TRUSTED_HOPS) return hops;
  if (state.trustProxyWarned !== raw) {
    state.trustProxyWarned = raw;
    log.warn({ TRUST_PROXY: raw }, "TRUST_PROXY must be a number of proxy hops (0-10); trusting none");
  }
  return 0;
}

/**
 * What the outermost trusted proxy wrote into a comma-separated `X-Forwarded-*` header (`X-Forwarded-Host`,
 * `-Proto`): the entry `TRUST_PROXY` hops from the right, since each proxy appends and only the last N entries
 * were written by proxies we trust. Null when no proxy is trusted or the header is absent.
 */
export function trustedForwarded(
  headers: Pick<Headers, "get">,
  name: string,
  env: Env = process.env,
): string | null {
  const hops = trustedProxyHops(env);
  if (hops === 0) return null;
  const values = (headers.get(name) ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  return values.length ? values[Math.max(0, values.length - hops)]! : null;
}

/**
 * The address of the client: the TCP peer, unless `TRUST_PROXY` says N proxies stand in front, in which case
 * the address N hops from the right of the chain `X-Forwarded-For, peer` (each proxy appends the address it
 * was called from, so only the last N entries were written by proxies we trust). "unknown" when no socket
 * address reached us (the hook is not installed, e.g. a handler called directly in a test).
 */
export function clientAddress(headers: Pick<Headers, "get">, env: Env = process.env): string {
  const peer = normalizeAddress(headers.get(SOCKET_ADDRESS_HEADER) ?? undefined) || "unknown";
  const hops = trustedProxyHops(env);
  if (hops === 0) return peer;
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => normalizeAddress(part.trim()))
    .filter(Boolean);
  const chain = [...forwarded, peer];
  // The peer is hop 0; with fewer entries than trusted hops, the furthest one known is the client.
  return chain[Math.max(0, chain.length - 1 - hops)] ?? peer;
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1; anything else is kept as is. */
function normalizeAddress(address: string | undefined): string {
  if (!address) return "";
  const trimmed = address.trim().slice(0, 100);
  return trimmed.startsWith("::ffff:") && trimmed.includes(".") ? trimmed.slice(7) : trimmed;
}

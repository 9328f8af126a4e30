import dns from "node:dns";
import net from "node:net";

/** One resolved address, as `dns.lookup` reports it. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Resolves a host name to every address it has; injectable so tests can play a rebinding DNS server. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** A refusal by the address policy (as opposed to a network failure). */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
}

export const systemResolver: Resolver = async (host) => {
  const found = await dns.promises.lookup(host, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Ranges no agent fetch may reach, checked in order so the first reason named is the most specific. */
const RULES: [reason: string, cidrs: string[]][] = [
  ["the cloud metadata address", ["169.254.169.254/32", "fd00:ec2::254/128"]],
  ["a loopback address", ["127.0.0.0/8", "::1/128"]],
  ["an unspecified address", ["0.0.0.0/8", "::/128"]],
  ["a private address", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]],
  ["a carrier-grade NAT address", ["100.64.0.0/10"]],
  ["a link-local address", ["169.254.0.0/16", "fe80::/10"]],
  ["a unique-local address", ["fc00::/7"]],
  ["a multicast address", ["224.0.0.0/4", "ff00::/8"]],
  [
    "a reserved address",
    // Includes broadcast, documentation/benchmark nets, IPv4-compatible (::/96), discard and site-local IPv6.
    [
      "240.0.0.0/4",
      "192.0.0.0/24",
      "192.0.2.0/24",
      "198.18.0.0/15",
      "198.51.100.0/24",
      "203.0.113.0/24",
      "::/96",
      "100::/64",
      "2001:db8::/32",
      "fec0::/10",
    ],
  ],
];

const BLOCKS: [string, net.BlockList][] = RULES.map(([reason, cidrs]) => {
  const list = new net.BlockList();
  for (const cidr of cidrs) addCidr(list, cidr);
  return [reason, list];
});

/** Strips URL brackets and an IPv6 zone id ("fe80::1%eth0"), which BlockList cannot judge. */
function bareAddress(ip: string): string {
  return ip.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
}

function addCidr(list: net.BlockList, cidr: string): void {
  const [base = "", prefixText, extra] = cidr.trim().split("/");
  const address = bareAddress(base);
  const family = net.isIP(address);
  const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
  const max = family === 6 ? 128 : 32;
  if (!family || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new Error(`"${cidr}" is not an address range (expected CIDR such as 10.1.0.0/16 or fd00::/8)`);
  }
  list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
}

/** Builds the operator allow-list from CIDR strings ("127.0.0.0/8,10.1.0.0/16" or an array). */
export function parseAllowList(spec: string | string[] | undefined): net.BlockList {
  const list = new net.BlockList();
  const entries = Array.isArray(spec) ? spec : (spec ?? "").split(",");
  for (const entry of entries) if (entry.trim()) addCidr(list, entry);
  return list;
}

/** The eight 16-bit words of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Words(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((w) => Number.parseInt(w, 16));
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIPv4(ip: string): string | null {
  const w = ipv6Words(ip);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && w[5] === 0xffff) return quad(w[6]!, w[7]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return quad(w[6]!, w[7]!);
  if (w[0] === 0x2002) return quad(w[1]!, w[2]!);
  return null;
}

/** Why an address is off limits ("a loopback address"), or null when it may be fetched. */
export function blockedReason(ip: string, allow?: net.BlockList): string | null {
  const address = bareAddress(ip);
  const family = net.isIP(address);
  // BlockList.check answers false for anything it cannot parse, so fail closed here instead.
  if (!family) return "not an IP address";
  const type = family === 6 ? "ipv6" : "ipv4";
  if (allow?.check(address, type)) return null;
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4) {
      const reason = blockedReason(v4, allow);
      return reason && `${reason} (embedded IPv4 ${v4})`;
    }
  }
  for (const [reason, list] of BLOCKS) if (list.check(address, type)) return reason;
  return null;
}

/** True when the address is loopback, private, link-local, reserved… and not opened by the allow-list. */
export function isBlockedAddress(ip: string, allow?: net.BlockList): boolean {
  return blockedReason(ip, allow) !== null;
}

export type ResolveOptions = { allow?: net.BlockList; resolver?: Resolver; signal?: AbortSignal };

/**
 * Resolves a host (a name, or an IP literal as `new URL()` normalised it) and returns the address to connect
 * to; refuses when ANY address it resolves to is blocked, so a name cannot smuggle one bad address in a list.
 */
export async function resolveAllowed(host: string, opts: ResolveOptions = {}): Promise<ResolvedAddress> {
  const literal = bareAddress(host);
  const literalFamily = net.isIP(literal);
  const addresses: ResolvedAddress[] = literalFamily
    ? [{ address: literal, family: literalFamily === 6 ? 6 : 4 }]
    : await withSignal((opts.resolver ?? systemResolver)(host), opts.signal).catch((error: unknown) => {
        if (opts.signal?.aborted) throw error;
        throw new Error(
          `could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
  if (addresses.length === 0) throw new Error(`could not resolve ${host}: no addresses`);
  for (const { address } of addresses) {
    const reason = blockedReason(address, opts.allow);
    if (!reason) continue;
    const subject = literalFamily ? address : `${host} resolves to ${address}, which`;
    throw new BlockedAddressError(`refused: ${subject} is ${reason}`);
  }
  return addresses[0]!;
}

/**
 * A `lookup` for `http.request` that always answers the already-checked address, so the socket connects to
 * exactly what the policy approved, whatever DNS says by then (no rebinding between check and connect).
 */
export function pinnedLookup(checked: ResolvedAddress): net.LookupFunction {
  return (_hostname, options, callback) => {
    // Node 20 connects with autoSelectFamily, which asks for `all: true` and expects an array back.
    if (options.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  };
}

/** Rejects as soon as the signal aborts (dns.lookup itself cannot be cancelled). */
function withSignal<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("aborted");
}

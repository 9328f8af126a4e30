import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";

/**
 * Provider calls through an outbound proxy, as the environment says (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`;
 * lower-case names first, as curl reads them): an https target through a CONNECT tunnel, an http one as an
 * absolute-URI request to the proxy. `NO_PROXY` follows curl: a comma- (or space-) separated list of host names
 * (each also matching its subdomains; a leading dot or `*.` is the same), IP addresses, CIDR ranges, or `*` for
 * everything; a `host:port` entry matches that port only. Loopback (localhost, 127.0.0.0/8, ::1) is never
 * proxied, as in Go and Node's own proxy support: a local model server stays reachable with a proxy set.
 */
export type ProxyRoute =
  | { kind: "direct" }
  | { kind: "tunnel"; agent: https.Agent }
  | { kind: "forward"; agent: http.Agent; proxy: URL; authorization?: string };

type Settings = {
  key: string;
  httpProxy: URL | null;
  httpsProxy: URL | null;
  noProxy: NoProxyRule[];
  routes: Map<string, ProxyRoute>;
  tunnel: https.Agent | null;
  forward: http.Agent | null;
};

type NoProxyRule =
  | { kind: "all" }
  | { kind: "host"; host: string; port: string | null }
  | { kind: "cidr"; family: 4 | 6; bits: number; address: bigint };

type Env = Record<string, string | undefined>;
const DIRECT: ProxyRoute = { kind: "direct" };
let settings: Settings | null = null;

/** How a request to `url` goes out: directly, or through the environment's proxy. */
export function proxyRoute(url: URL, env: Env = process.env): ProxyRoute {
  const current = settingsOf(env);
  if (!current.httpProxy && !current.httpsProxy) return DIRECT;
  const key = `${url.protocol}//${url.host}`;
  let route = current.routes.get(key);
  if (!route) {
    route = decide(current, url);
    if (current.routes.size >= 256) current.routes.clear();
    current.routes.set(key, route);
  }
  return route;
}

function envOf(env: Env, name: string): string {
  return (env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? "").trim();
}

function settingsOf(env: Env): Settings {
  const raw = [envOf(env, "https_proxy"), envOf(env, "http_proxy"), envOf(env, "no_proxy")];
  const key = raw.join("\n");
  if (settings?.key === key) return settings;
  settings?.tunnel?.destroy();
  settings?.forward?.destroy();
  settings = {
    key,
    httpsProxy: proxyUrl(raw[0]!),
    httpProxy: proxyUrl(raw[1]!),
    noProxy: parseNoProxy(raw[2]!),
    routes: new Map(),
    tunnel: null,
    forward: null,
  };
  return settings;
}

function proxyUrl(value: string): URL | null {
  if (!value) return null;
  try {
    // curl takes `host:port` without a scheme as http://host:port.
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new Error(`unsupported proxy scheme ${url.protocol}`);
    return url;
  } catch (error) {
    throw new Error(`the proxy URL in the environment cannot be used: ${(error as Error).message}`);
  }
}

function decide(current: Settings, url: URL): ProxyRoute {
  const proxy = url.protocol === "https:" ? current.httpsProxy : current.httpProxy;
  if (!proxy || bypassed(current.noProxy, url)) return DIRECT;
  if (url.protocol === "https:") {
    const tunnel = current.tunnel ?? new TunnelAgent(proxy);
    current.tunnel = tunnel;
    return { kind: "tunnel", agent: tunnel };
  }
  const forward =
    current.forward ??
    (proxy.protocol === "https:"
      ? new https.Agent({ keepAlive: true, maxSockets: 256 })
      : new http.Agent({ keepAlive: true, maxSockets: 256 }));
  current.forward = forward;
  return { kind: "forward", agent: forward, proxy, authorization: basicAuth(proxy) };
}

function basicAuth(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/** The curl reading of NO_PROXY (see the module comment). */
export function parseNoProxy(value: string): NoProxyRule[] {
  const rules: NoProxyRule[] = [];
  for (let entry of value.split(/[\s,]+/)) {
    entry = entry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") {
      rules.push({ kind: "all" });
      continue;
    }
    const cidr = entry.match(/^(.+)\/(\d{1,3})$/);
    if (cidr && net.isIP(cidr[1]!)) {
      const family = net.isIP(cidr[1]!) as 4 | 6;
      rules.push({ kind: "cidr", family, bits: Number(cidr[2]), address: ipValue(cidr[1]!, family) });
      continue;
    }
    let host = entry;
    let port: string | null = null;
    const bracketed = entry.match(/^\[([^\]]+)\](?::(\d+))?$/);
    if (bracketed) [host, port] = [bracketed[1]!, bracketed[2] ?? null];
    else if (!net.isIPv6(entry)) {
      const withPort = entry.match(/^(.*):(\d+)$/);
      if (withPort) [host, port] = [withPort[1]!, withPort[2]!];
    }
    host = host.replace(/^\*?\./, "");
    if (host) rules.push({ kind: "host", host, port });
  }
  return rules;
}

function bypassed(rules: NoProxyRule[], url: URL): boolean {
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  if (isLoopback(host)) return true;
  const family = net.isIP(host) as 0 | 4 | 6;
  for (const rule of rules) {
    if (rule.kind === "all") return true;
    if (rule.kind === "cidr") {
      if (family === rule.family && inRange(ipValue(host, family), rule)) return true;
      continue;
    }
    if (rule.port && rule.port !== port) continue;
    if (host === rule.host || (!family && host.endsWith(`.${rule.host}`))) return true;
  }
  return false;
}

function isLoopback(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return net.isIPv4(host) && host.startsWith("127.");
}

function ipValue(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split(".").reduce((n, part) => (n << 8n) + BigInt(Number(part)), 0n);
  const [head = "", tail = ""] = address.split("::");
  const parts = (s: string) => (s ? s.split(":") : []);
  const left = parts(head);
  const right = parts(tail);
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return groups.reduce((n, group) => (n << 16n) + BigInt(Number.parseInt(group || "0", 16)), 0n);
}

function inRange(value: bigint, rule: Extract<NoProxyRule, { kind: "cidr" }>): boolean {
  const width = rule.family === 4 ? 32 : 128;
  const shift = BigInt(width - Math.min(rule.bits, width));
  return value >> shift === rule.address >> shift;
}

/**
 * An https agent whose connections are CONNECT tunnels through the proxy (kept alive and pooled per target like
 * any https connection), TLS to the provider running inside the tunnel.
 */
class TunnelAgent extends https.Agent {
  constructor(private readonly proxy: URL) {
    super({ keepAlive: true, maxSockets: 256 });
  }

  override createConnection(
    options: http.RequestOptions & tls.ConnectionOptions,
    callback?: (error: Error | null, socket: net.Socket) => void,
  ): undefined {
    const host = options.host ?? options.hostname ?? "localhost";
    const port = Number(options.port ?? 443);
    const proxyPort = Number(this.proxy.port || (this.proxy.protocol === "https:" ? 443 : 80));
    const socket: net.Socket =
      this.proxy.protocol === "https:"
        ? tls.connect({ host: this.proxy.hostname, port: proxyPort, servername: this.proxy.hostname })
        : net.connect({ host: this.proxy.hostname, port: proxyPort });
    let done = false;
    const finish = (error: Error | null, result?: net.Socket) => {
      if (done) return;
      done = true;
      if (error) socket.destroy();
      callback?.(error, result ?? socket);
    };
    const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const authorization = basicAuth(this.proxy);
    socket.once("error", (error) => finish(error));
    socket.once(this.proxy.protocol === "https:" ? "secureConnect" : "connect", () => {
      socket.write(
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n` +
          (authorization ? `Proxy-Authorization: ${authorization}\r\n` : "") +
          "\r\n",
      );
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 16_384) finish(new Error("the proxy's answer to CONNECT is too long"));
        return;
      }
      socket.off("data", onData);
      const status = Number(head.subarray(0, end).toString("latin1").split(" ")[1]);
      if (status !== 200)
        return finish(new Error(`the proxy refused to connect to ${target} (HTTP ${status || "?"})`));
      // Anything after the proxy's answer is the start of the TLS exchange: give it back to the socket.
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      socket.removeAllListeners("error");
      const secure = tls.connect({ ...options, socket, servername: options.servername ?? sniName(host) });
      secure.once("secureConnect", () => finish(null, secure));
      secure.once("error", (error) => finish(error));
    };
    socket.on("data", onData);
    return undefined;
  }
}

/** TLS server names are host names, never IP addresses. */
const sniName = (host: string): string | undefined => (net.isIP(host) ? undefined : host);

// Provider calls through an outbound proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY): the gateway's node:http
// transport (nodeRequest, and nodeFetch, the SDKs' transport over it) tunnels https through CONNECT and sends http
// as absolute-URI requests. A tiny proxy records what it was asked and resolves the test's made-up host names
// to the local servers; the https server has a certificate made for the test.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeFetch, nodeRequest } from "@/lib/gateway/adapters/node-fetch";
import { parseNoProxy, proxyRoute } from "@/lib/gateway/adapters/proxy";

const PROXY_ENV = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"];

describe("NO_PROXY and the proxy choice (curl's reading)", () => {
  const route = (url: string, env: Record<string, string>) => proxyRoute(new URL(url), env).kind;
  const env = { HTTPS_PROXY: "http://proxy.corp:3128", HTTP_PROXY: "http://proxy.corp:3128" };

  it("proxies https through a tunnel and http by forwarding, unless nothing is set", () => {
    expect(route("https://api.openai.com/v1", env)).toBe("tunnel");
    expect(route("http://vllm.internal:8000/v1", env)).toBe("forward");
    expect(route("https://api.openai.com/v1", {})).toBe("direct");
    expect(route("http://vllm.internal:8000/v1", { HTTPS_PROXY: "http://proxy.corp:3128" })).toBe("direct");
  });

  it("never proxies loopback, so a local model server stays reachable", () => {
    for (const url of [
      "http://localhost:11434",
      "http://127.0.0.1:8000",
      "http://[::1]:8000",
      "https://a.localhost",
    ])
      expect(route(url, env), url).toBe("direct");
  });

  it("matches host names with their subdomains, IPs, CIDR ranges, ports and *", () => {
    const noProxy = (value: string) => ({ ...env, NO_PROXY: value });
    expect(route("https://api.openai.com", noProxy("openai.com"))).toBe("direct");
    expect(route("https://api.openai.com", noProxy(".openai.com"))).toBe("direct");
    expect(route("https://api.openai.com", noProxy("*.openai.com"))).toBe("direct");
    expect(route("https://notopenai.com", noProxy("openai.com"))).toBe("tunnel");
    expect(route("https://api.anthropic.com", noProxy("openai.com, anthropic.com"))).toBe("direct");
    expect(route("http://10.1.2.3:8000", noProxy("10.0.0.0/8"))).toBe("direct");
    expect(route("http://11.1.2.3:8000", noProxy("10.0.0.0/8"))).toBe("forward");
    expect(route("http://[fd00::5]:8000", noProxy("fd00::/8"))).toBe("direct");
    expect(route("http://vllm.internal:8000", noProxy("vllm.internal:8000"))).toBe("direct");
    expect(route("http://vllm.internal:9000", noProxy("vllm.internal:8000"))).toBe("forward");
    expect(route("https://anything.example", noProxy("*"))).toBe("direct");
    // Lower-case names first, as curl reads them.
    expect(route("https://api.openai.com", { ...env, no_proxy: "openai.com", NO_PROXY: "" })).toBe("direct");
    expect(parseNoProxy(" a.com ,, b.com:8080 ")).toEqual([
      { kind: "host", host: "a.com", port: null },
      { kind: "host", host: "b.com", port: "8080" },
    ]);
  });
});

describe("provider calls through a proxy", () => {
  let work: string;
  let target: http.Server;
  let secure: https.Server;
  let proxy: http.Server;
  let proxyPort: number;
  const seen: { kind: "connect" | "forward"; target: string; auth?: string }[] = [];
  const saved: Record<string, string | undefined> = {};
  const ports: Record<string, number> = {};

  /** Answers JSON, or an event stream when asked for one, saying how it was reached. */
  const answer = (scheme: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    req.resume();
    if (req.url?.includes("stream")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: {"via":"${scheme}","n":1}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ via: scheme, host: req.headers.host, path: req.url }));
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "tollgate-proxy-"));
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=secure.test"],
        ...["-addext", "subjectAltName=DNS:secure.test"],
        ...["-keyout", path.join(work, "key.pem"), "-out", path.join(work, "cert.pem")],
      ],
      { stdio: "ignore" },
    );
    target = http.createServer(answer("http"));
    secure = https.createServer(
      { key: readFileSync(path.join(work, "key.pem")), cert: readFileSync(path.join(work, "cert.pem")) },
      answer("https"),
    );
    // The proxy: resolves *.test to the local servers; CONNECT tunnels, absolute-URI requests are forwarded.
    const resolve = (host: string) => ports[host.split(":")[0]!];
    proxy = http.createServer((req, res) => {
      seen.push({ kind: "forward", target: req.url ?? "", auth: req.headers["proxy-authorization"] });
      const url = new URL(req.url ?? "");
      const upstream = http.request(
        {
          host: "127.0.0.1",
          port: resolve(url.hostname),
          path: url.pathname + url.search,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    proxy.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      seen.push({ kind: "connect", target: req.url ?? "", auth: req.headers["proxy-authorization"] });
      const port = resolve(req.url ?? "");
      if (!port) return void socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      const upstream = net.connect(port, "127.0.0.1", () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    for (const server of [target, secure, proxy])
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    ports["plain.test"] = (target.address() as AddressInfo).port;
    ports["secure.test"] = (secure.address() as AddressInfo).port;
    proxyPort = (proxy.address() as AddressInfo).port;
    for (const name of PROXY_ENV) saved[name] = process.env[name];
  });

  afterEach(() => {
    seen.length = 0;
    for (const name of PROXY_ENV) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  });

  afterAll(async () => {
    for (const server of [target, secure, proxy]) {
      server.closeAllConnections?.();
      await new Promise((done) => server.close(done));
    }
    rmSync(work, { recursive: true, force: true });
  });

  const setProxy = (vars: Record<string, string>) => {
    for (const name of PROXY_ENV) delete process.env[name];
    Object.assign(process.env, vars);
  };

  it("an https call goes through a CONNECT tunnel (with the proxy's credentials), TLS to the provider inside it; JSON and streams", async () => {
    setProxy({ HTTPS_PROXY: `http://tollgate:s3cret@127.0.0.1:${proxyPort}` });
    // The test's own certificate authority is not in Node's store.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const url = `https://secure.test:${ports["secure.test"]}/v1/chat/completions`;
    const reply = await nodeRequest(url, { method: "POST", headers: {}, body: "{}" });
    expect(reply.kind === "whole" && JSON.parse(reply.body.toString())).toMatchObject({ via: "https" });
    const stream = await nodeFetch(`https://secure.test:${ports["secure.test"]}/v1/stream`, {
      method: "POST",
      body: "{}",
    });
    expect(await stream.text()).toContain('"via":"https"');
    expect(seen[0]).toEqual({
      kind: "connect",
      target: `secure.test:${ports["secure.test"]}`,
      auth: `Basic ${Buffer.from("tollgate:s3cret").toString("base64")}`,
    });
    expect(seen.every((s) => s.kind === "connect")).toBe(true);
  });

  it("an http call is sent to the proxy as an absolute-URI request", async () => {
    setProxy({ HTTP_PROXY: `http://127.0.0.1:${proxyPort}` });
    const url = `http://plain.test:${ports["plain.test"]}/v1/models?x=1`;
    const res = await nodeFetch(url);
    expect(await res.json()).toEqual({
      via: "http",
      host: `plain.test:${ports["plain.test"]}`,
      path: "/v1/models?x=1",
    });
    expect(seen).toEqual([{ kind: "forward", target: url, auth: undefined }]);
  });

  it("NO_PROXY and loopback go direct: the proxy sees nothing", async () => {
    setProxy({ HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: "plain.test" });
    // A name only the proxy knows: going direct, it does not resolve.
    await expect(nodeFetch(`http://plain.test:${ports["plain.test"]}/v1/models`)).rejects.toThrow(
      /fetch failed/,
    );
    const local = await nodeFetch(`http://127.0.0.1:${ports["plain.test"]}/v1/models`);
    expect((await local.json()).via).toBe("http");
    expect(seen).toEqual([]);
  });

  it("a proxy that refuses the tunnel fails the call with a connection error, as an unreachable provider does", async () => {
    setProxy({ HTTPS_PROXY: `http://127.0.0.1:${proxyPort}` });
    await expect(nodeRequest("https://unknown.test/v1", { headers: {} })).rejects.toThrow(/fetch failed/);
    expect(seen).toEqual([{ kind: "connect", target: "unknown.test:443", auth: undefined }]);
  });
});

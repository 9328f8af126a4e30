import { describe, expect, it } from "vitest";
import { clientAddress, SOCKET_ADDRESS_HEADER } from "@/lib/http/client-address";
import { csrfRefusal, expectedOrigin, isJsonContentType } from "@/lib/http/same-origin";
import { contentSecurityPolicy, servedOverHttps } from "@/lib/http/security-headers";

const post = (headers: Record<string, string>, method = "POST") => ({
  method,
  headers: new Headers({ host: "app.example:3000", ...headers }),
});
const json = { "content-type": "application/json", "content-length": "2" };

describe("the CSRF rule", () => {
  it("behind one trusted proxy, takes the host that proxy wrote, not one a client put before it", () => {
    const chained = new Headers({
      host: "app:3000",
      "x-forwarded-host": "evil.example, tollgate.example",
      "x-forwarded-proto": "http, https",
    });
    expect(expectedOrigin(chained, { TRUST_PROXY: "1" })).toEqual({ origin: "https://tollgate.example" });
    expect(expectedOrigin(chained, {})).toEqual({ host: "app:3000" });
  });

  it("lets a same-origin JSON request through and leaves reads alone", () => {
    expect(
      csrfRefusal(post({ origin: "http://app.example:3000", ...json }), { jsonEndpoint: true }, {}),
    ).toBe(null);
    expect(csrfRefusal(post({ origin: "http://evil.example" }, "GET"), { jsonEndpoint: true }, {})).toBe(
      null,
    );
  });

  it("refuses another origin, a same-site one included, and an opaque `null` origin with 403", () => {
    for (const origin of ["http://evil.example", "http://app.example:3001", "null"]) {
      expect(csrfRefusal(post({ origin, ...json }), { jsonEndpoint: true }, {})).toMatchObject({
        status: 403,
        code: "forbidden",
      });
    }
  });

  it("without an Origin, accepts a same-origin Referer or Sec-Fetch-Site and refuses anything else", () => {
    const check = (h: Record<string, string>) =>
      csrfRefusal(post({ ...h, ...json }), { jsonEndpoint: true }, {});
    expect(check({ referer: "http://app.example:3000/dev/admin/keys" })).toBe(null);
    expect(check({ "sec-fetch-site": "same-origin" })).toBe(null);
    expect(check({ referer: "http://evil.example/" })?.status).toBe(403);
    expect(check({ "sec-fetch-site": "same-site" })?.status).toBe(403);
    expect(check({})?.status).toBe(403);
  });

  it("refuses a same-origin body to a JSON endpoint unless it says it is JSON (415), but not an empty one", () => {
    const from = { origin: "http://app.example:3000" };
    const textPlain = { ...from, "content-type": "text/plain", "content-length": "20" };
    expect(csrfRefusal(post(textPlain), { jsonEndpoint: true }, {})).toMatchObject({ status: 415 });
    // next-auth's form posts and server actions are not JSON endpoints.
    expect(csrfRefusal(post(textPlain), { jsonEndpoint: false }, {})).toBe(null);
    expect(csrfRefusal(post({ ...from, "content-length": "0" }, "DELETE"), { jsonEndpoint: true }, {})).toBe(
      null,
    );
    expect(isJsonContentType("application/merge-patch+json; charset=utf-8")).toBe(true);
    expect(isJsonContentType("text/json")).toBe(false);
  });

  it("takes the origin from AUTH_URL when set, and X-Forwarded-Host only behind a trusted proxy", () => {
    const viaProxy = { origin: "https://tollgate.example", "x-forwarded-host": "tollgate.example", ...json };
    expect(csrfRefusal(post(viaProxy), { jsonEndpoint: true }, {})?.status).toBe(403);
    expect(csrfRefusal(post(viaProxy), { jsonEndpoint: true }, { TRUST_PROXY: "1" })).toBe(null);
    const env = { AUTH_URL: "https://tollgate.example/" };
    expect(
      csrfRefusal(post({ origin: "https://tollgate.example", ...json }), { jsonEndpoint: true }, env),
    ).toBe(null);
    expect(
      csrfRefusal(post({ origin: "http://app.example:3000", ...json }), { jsonEndpoint: true }, env)?.status,
    ).toBe(403);
  });
});

describe("the client address", () => {
  const headers = (forwardedFor?: string) =>
    new Headers({
      [SOCKET_ADDRESS_HEADER]: "10.0.0.2",
      ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
    });

  it("is the socket's address unless TRUST_PROXY is set, whatever X-Forwarded-For says", () => {
    expect(clientAddress(headers("203.0.113.7"), {})).toBe("10.0.0.2");
    expect(clientAddress(headers("203.0.113.7"), { TRUST_PROXY: "0" })).toBe("10.0.0.2");
    expect(clientAddress(new Headers({ "x-forwarded-for": "203.0.113.7" }), {})).toBe("unknown");
  });

  it("with TRUST_PROXY=N takes the Nth hop from the right of X-Forwarded-For", () => {
    const chain = "198.51.100.1, 203.0.113.7, 192.0.2.4";
    expect(clientAddress(headers(chain), { TRUST_PROXY: "1" })).toBe("192.0.2.4");
    expect(clientAddress(headers(chain), { TRUST_PROXY: "2" })).toBe("203.0.113.7");
    // More hops trusted than the chain has: the furthest address known.
    expect(clientAddress(headers("192.0.2.4"), { TRUST_PROXY: "5" })).toBe("192.0.2.4");
    expect(clientAddress(headers(), { TRUST_PROXY: "1" })).toBe("10.0.0.2");
    // Not a number of hops: trust none.
    expect(clientAddress(headers(chain), { TRUST_PROXY: "true" })).toBe("10.0.0.2");
  });
});

describe("the security headers", () => {
  it("allows scripts only by nonce in production, never 'unsafe-inline', and forbids framing", () => {
    const csp = contentSecurityPolicy({ nonce: "abc" });
    expect(csp).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(csp.match(/script-src[^;]*/)?.[0]).not.toMatch(/unsafe-(inline|eval)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(contentSecurityPolicy({ nonce: "abc", https: true })).toContain("upgrade-insecure-requests");
  });

  it("knows HTTPS from AUTH_URL, or from X-Forwarded-Proto behind a trusted proxy only", () => {
    const proto = new Headers({ "x-forwarded-proto": "https" });
    expect(servedOverHttps(new Headers(), { AUTH_URL: "https://tollgate.example" })).toBe(true);
    expect(servedOverHttps(proto, {})).toBe(false);
    expect(servedOverHttps(proto, { TRUST_PROXY: "1" })).toBe(true);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invitationLink } from "@/features/members/server/members";

/** A request as `next start` hands it to a route: its URL on the server's own origin, the client's headers. */
const request = (headers: Record<string, string>) =>
  new Request("http://localhost:3000/api/admin/invitations", { method: "POST", headers });
const link = (headers: Record<string, string>) => invitationLink(request(headers), "tok");

describe("the invitation link's host", () => {
  beforeEach(() => {
    vi.stubEnv("AUTH_URL", "");
    vi.stubEnv("NEXTAUTH_URL", "");
    vi.stubEnv("TRUST_PROXY", "");
  });
  afterEach(() => vi.unstubAllEnvs());

  it("is AUTH_URL (or NEXTAUTH_URL) when set, whatever the headers say", () => {
    vi.stubEnv("AUTH_URL", "https://tollgate.example.com/");
    expect(link({ host: "evil.example", "x-forwarded-host": "evil.example" })).toBe(
      "https://tollgate.example.com/invite/tok",
    );
    vi.stubEnv("AUTH_URL", "");
    vi.stubEnv("NEXTAUTH_URL", "https://next.example.com/app");
    expect(link({ "x-forwarded-host": "evil.example" })).toBe("https://next.example.com/invite/tok");
  });

  it("never takes a forged X-Forwarded-Host without TRUST_PROXY", () => {
    const forged = link({ host: "tollgate.example:8080", "x-forwarded-host": "evil.example" });
    expect(forged).not.toContain("evil.example");
    expect(forged).toBe("http://localhost:3000/invite/tok");
    vi.stubEnv("TRUST_PROXY", "yes");
    expect(link({ host: "tollgate.example", "x-forwarded-host": "evil.example" })).not.toContain("evil");
  });

  it("uses the request's own Host when it was not forwarded (Next copies Host into X-Forwarded-Host)", () => {
    expect(link({ host: "tollgate.example:8080" })).toBe("http://tollgate.example:8080/invite/tok");
    expect(link({ host: "tollgate.example:8080", "x-forwarded-host": "tollgate.example:8080" })).toBe(
      "http://tollgate.example:8080/invite/tok",
    );
    expect(link({ host: "evil.example/phish?x=" })).toBe("http://localhost:3000/invite/tok");
  });

  it("takes X-Forwarded-Host and -Proto from the trusted proxy's hop when TRUST_PROXY is set", () => {
    vi.stubEnv("TRUST_PROXY", "1");
    expect(
      link({
        host: "app:3000",
        "x-forwarded-host": "evil.example, tollgate.example.com",
        "x-forwarded-proto": "http, https",
      }),
    ).toBe("https://tollgate.example.com/invite/tok");
    vi.stubEnv("TRUST_PROXY", "2");
    expect(
      link({ host: "app:3000", "x-forwarded-host": "tollgate.example.com", "x-forwarded-proto": "https" }),
    ).toBe("https://tollgate.example.com/invite/tok");
  });
});

import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "@/lib/auth/callback-path";
import { safeCallbackPath as serverSafeCallbackPath } from "@/lib/auth/sign-in";

const ATTACKS = [
  "https://evil.test/",
  "https://evil.example",
  "HTTPS://evil.example",
  "//evil.test",
  "//evil.example/path",
  "/\\evil.test",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\r/evil.example",
  "\t//evil.example",
  "/\u0000/evil.example",
  "/\u001f/evil.example",
  "/\u007f/evil.example",
  "/%2F%2Fevil.example",
  "/%2f%2fevil.example",
  "/%2F/evil.example",
  "/%5C%5Cevil.example",
  "/%5cevil.example",
  "/..%2F..%2Fevil",
  "/%09/evil",
  "/%0a/evil",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.example",
  "/login?x=1",
  "/login",
  "",
];

describe("where sign-in returns to", () => {
  it("returns to the page the visitor asked for", () => {
    expect(safeCallbackPath("/dev/agent/turns?status=failed")).toBe("/dev/agent/turns?status=failed");
    expect(safeCallbackPath("/dev/agent/audit?turn=abc#event-3")).toBe("/dev/agent/audit?turn=abc#event-3");
    expect(safeCallbackPath("/")).toBe("/");
  });

  it("never leaves the site or loops back to /login", () => {
    for (const bad of ATTACKS) expect(safeCallbackPath(bad), JSON.stringify(bad)).toBe("/");
    expect(safeCallbackPath(undefined)).toBe("/");
    expect(safeCallbackPath(null)).toBe("/");
  });

  it("is the same rule in the browser, resolved against the page's own origin", () => {
    const origin = "http://localhost:3000";
    expect(safeCallbackPath("/dev/agent/turns?x=1", origin)).toBe("/dev/agent/turns?x=1");
    for (const bad of ATTACKS) expect(safeCallbackPath(bad, origin), JSON.stringify(bad)).toBe("/");
    // The server's sign-in answer goes through the very same function.
    expect(serverSafeCallbackPath).toBe(safeCallbackPath);
  });

  it("answers with the path the URL parser resolved, so what is checked is what the browser follows", () => {
    expect(safeCallbackPath("/a/../dev/agent/turns")).toBe("/dev/agent/turns");
    expect(safeCallbackPath("/%2e%2e/dev")).toBe("/dev");
  });
});

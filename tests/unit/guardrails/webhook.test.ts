import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardrailEngine } from "@/lib/guardrails/engine";
import { createWebhookCheck, type WebhookPost } from "@/lib/guardrails/webhook";
import { fakeDependencies, rule } from "./fakes";

type Received = { body: string; signature: string | undefined };
let answer: (request: IncomingMessage, response: ServerResponse, body: string) => void = () => {};
const received: Received[] = [];
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ body, signature: request.headers["x-tollgate-signature"] as string | undefined });
      answer(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// A plain fetch stands in for the address guard's client (the guard would refuse 127.0.0.1).
const post: WebhookPost = async (url, body, headers, signal) => {
  const response = await fetch(url, { method: "POST", body, headers, signal });
  return { status: response.status, text: await response.text() };
};

const NOW = 1_765_000_000_000;
const webhook = createWebhookCheck({ post, now: () => NOW, allowHttp: true });
const engine = createGuardrailEngine(fakeDependencies({ webhook }));

function hookRule(onError: "open" | "closed" = "closed", timeoutMs?: number) {
  const check = { type: "webhook" as const, url: `${base}/check`, secret: "whsec_test", timeoutMs };
  return rule({ id: "hook", name: "Tenant hook", check, action: "redact", onError });
}

function answerJson(json: unknown, status = 200) {
  answer = (_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(typeof json === "string" ? json : JSON.stringify(json));
  };
}

const evaluate = (text: string, onError?: "open" | "closed", timeoutMs?: number) =>
  engine.evaluate("input", [{ text, origin: "user" }], [hookRule(onError, timeoutMs)]);

describe("the webhook check", () => {
  it("posts the text with a signature the receiver can verify with the rule's secret", async () => {
    answerJson({ action: "allow" });
    received.length = 0;
    const result = await evaluate("hello");
    expect(result.outcome).toBe("passed");
    const [{ body, signature }] = received as [Received];
    expect(JSON.parse(body)).toEqual({
      stage: "input",
      origin: "user",
      text: "hello",
      rule: { id: "hook", name: "Tenant hook" },
    });
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature ?? "");
    expect(match?.[1]).toBe(String(NOW / 1000));
    const expected = createHmac("sha256", "whsec_test").update(`${match![1]}.${body}`).digest("hex");
    expect(match![2]).toBe(expected);
  });

  it("redacts the spans a redact answer names", async () => {
    answerJson({ action: "redact", spans: [{ start: 5, end: 10, entity: "name" }] });
    const result = await evaluate("Dear Alice, hi");
    expect(result.texts).toEqual(["Dear [NAME], hi"]);
  });

  it("blocks the whole text on a block answer", async () => {
    answerJson({ action: "block", reason: "no" });
    const result = await evaluate("anything");
    expect(result.blockedBy).toEqual({ ruleId: "hook", ruleName: "Tenant hook", entity: "webhook_blocked" });
  });

  it.each([
    ["garbage", () => answerJson("not json at all"), "not JSON"],
    ["the wrong shape", () => answerJson({ verdict: "fine" }), "not {action"],
    [
      "a span outside the text",
      () => answerJson({ action: "redact", spans: [{ start: 0, end: 99 }] }),
      "outside",
    ],
    ["HTTP 500", () => answerJson({ action: "allow" }, 500), "HTTP 500"],
    ["more than 64 KB", () => answerJson({ action: "allow", reason: "x".repeat(70_000) }), "64 KB"],
  ])("treats %s as a check error that a closed rule blocks on", async (_name, setUp, message) => {
    setUp();
    const result = await evaluate("text");
    expect(result.outcome).toBe("blocked");
    expect(result.blockedBy?.entity).toBe("check_failed");
    expect(result.rules[0]!.error?.message).toContain(message);
  });

  it("times out a slow webhook and, open, lets the call through saying so", async () => {
    answer = (_request, response) => {
      setTimeout(() => response.end(JSON.stringify({ action: "block" })), 500);
    };
    const result = await evaluate("text", "open", 50);
    expect(result.outcome).toBe("passed");
    expect(result.rules[0]!.error?.message).toContain("timed out after 50 ms");
    expect(result.headers["x-tollgate-guardrail"]).toBe('check_failed;rule="hook";on_error=open');
  });

  it("refuses a plain http URL unless told it may", async () => {
    const strict = createWebhookCheck({ post, now: () => NOW });
    const check = { type: "webhook" as const, url: `${base}/check` };
    const input = { rule: hookRule(), stage: "input" as const, text: "x", origin: "user" as const };
    await expect(strict(check, { ...input, signal: new AbortController().signal })).rejects.toThrow(/https/);
  });
});

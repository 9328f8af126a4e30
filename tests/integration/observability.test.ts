// Issue 23's observability: one trace per drawer turn and per /v1 call (GenAI attributes, the caller's
// traceparent honoured, no content), /metrics behind its token with counters that move, and one log line per call.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { guardrailPolicy, usageLimit } from "@/db/schema";
import { processGuardrailCache } from "@/features/guardrails/server";
import { createApiKey } from "@/features/keys/server/keys";
import { log } from "@/lib/core/process/log";
import { configFromEnvironment, parseGatewayConfig } from "@/lib/gateway/config";
import { flushTracing, startTracing, stopTracing } from "@/lib/observability";
import { invalidatePolicy } from "@/lib/pipeline/policy";
import { isMetrics, serveMetrics } from "@/server/metrics";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const metricsRoute = await import("@/app/metrics/route");

const TOKEN = "metrics-token-for-tests";
/** A W3C trace context as a caller (a load balancer, the calling app) would send it. */
const callerTrace = () => {
  const hex = (n: number) =>
    [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
};

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  expect(
    startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "tollgate-test" }),
  ).toBe(true);
});
afterAll(async () => {
  await stopTracing();
  await receiver.close();
});

/** The spans of a trace, once the batch processor has sent them. */
async function spansOf(
  traceId: string,
  expected: (spans: ReceivedSpan[]) => boolean,
): Promise<ReceivedSpan[]> {
  for (let i = 0; i < 50; i++) {
    await flushTracing();
    const spans = receiver.trace(traceId);
    if (expected(spans)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return receiver.trace(traceId);
}

/** Every attribute value of the spans, as one string (to look for content that must not be there). */
const attributeText = (spans: ReceivedSpan[]) => JSON.stringify(spans.map((s) => s.attributes));

/** A sample's value in the text exposition format (0 when absent); labels given must all match. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** The request log lines written (pino's `info` calls with their fields), while `logged` is spied on. */
const callLines = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls
    .filter(([, msg]) => msg === "call" || msg === "turn")
    .map(([fields, msg]) => ({ msg: msg as string, fields: fields as Record<string, unknown> }));

describe.each(testDbKinds)("observability on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let root: string;
  let tenantId: string;
  let secret: string;
  let limited: { id: string; secret: string };
  let info: { mock: { calls: unknown[][] }; mockRestore(): void };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    tenantId = await app.tenantId("acme");
    const admin = await app.userId("admin@acme.test");
    secret = (await createApiKey(app.db, { tenantId, name: "observed", createdBy: admin })).secret;
    const created = await createApiKey(app.db, { tenantId, name: "limited", createdBy: admin });
    limited = { id: created.key.id, secret: created.secret };
    await app.db
      .insert(usageLimit)
      .values({ tenantId, scope: "key", subjectId: limited.id, requestsPerMinute: 1 });
    invalidatePolicy(tenantId);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    info = vi.spyOn(log, "info");
    return () => info.mockRestore();
  });

  /** The lean server's composition (server/gateway.ts): /metrics beside /v1, from the installed container. */
  async function startLean() {
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server.close(resolve));
    const api = serveApi(app.container.v1.core);
    server = createServer((incoming, outgoing) =>
      isMetrics(incoming)
        ? void serveMetrics(app.container.telemetry, incoming, outgoing)
        : api(incoming, outgoing),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const scrape = async () => {
    const res = await fetch(`${root}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  it("traces a drawer turn with a tool as one trace under the caller's traceparent, with GenAI attributes and no content", async () => {
    session.claims = { userId: await app.userId("member@acme.test"), tenantId };
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    const caller = callerTrace();
    const res = await postTurn({ message: "what are my open orders?" }, { traceparent: caller.header });
    expect(res.status).toBe(200);
    const frames = await readSse(res);
    const turnId = (frames[0]!.data as { turnId: string }).turnId;
    expect(frames.map((f) => f.event)).toContain("tool_result");

    const spans = await spansOf(caller.traceId, (s) => s.some((x) => x.name === "POST /api/agent/turns"));
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const server = byName("POST /api/agent/turns")[0]!;
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.attributes["http.response.status_code"]).toBe(200);
    const agent = byName("invoke_agent tollgate")[0]!;
    expect(agent.parentSpanId).toBe(server.spanId);
    expect(agent.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "tollgate.turn_id": turnId,
      "tollgate.tenant_id": tenantId,
      "tollgate.status": "success",
    });
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.length).toBeGreaterThanOrEqual(2); // the call that asked for the tool, and the answer
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(agent.spanId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "offline",
        "gen_ai.request.model": expect.any(String),
        "gen_ai.response.model": expect.any(String),
        "gen_ai.usage.input_tokens": expect.any(Number),
        "gen_ai.usage.output_tokens": expect.any(Number),
        "tollgate.tenant_id": tenantId,
        "tollgate.alias": "offline-demo",
        "tollgate.fallback_index": 0,
      });
    }
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toContainEqual(["tool_calls"]);
    const tool = byName("execute_tool query_orders")[0]!;
    expect(tool.parentSpanId).toBe(agent.spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "query_orders",
      "gen_ai.tool.call.id": expect.any(String),
    });
    // One trace: every span of the turn carries the caller's trace id.
    expect(receiver.spans.filter((s) => s.attributes["tollgate.turn_id"] === turnId)).toEqual([agent]);
    expect(attributeText(spans)).not.toMatch(/open orders/i);
    const answer = frames
      .filter((f) => f.event === "text")
      .map((f) => f.data.delta)
      .join("");
    expect(answer.length).toBeGreaterThan(10);
    expect(attributeText(spans)).not.toContain(answer.slice(0, 20));

    // One log line for the turn, with its fields and none of its words.
    const lines = callLines(info).filter((l) => l.fields.requestId === turnId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "turn",
      fields: {
        tenantId,
        userId: session.claims.userId,
        source: "drawer",
        alias: "offline-demo",
        provider: "offline",
        model: expect.any(String),
        status: "success",
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        cost: expect.any(String),
        latencyMs: expect.any(Number),
        traceId: caller.traceId,
      },
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/open orders/i);
  });

  it("traces a /v1 call that fell back (upstream 500, then an answer) as one trace, with both attempts and no content", async () => {
    await app.rebuild({
      env: { ...process.env, METRICS_TOKEN: TOKEN },
      gateway: parseGatewayConfig(
        {
          providers: {
            first: { type: "openai", baseUrl: upstream.url },
            second: { type: "openai", baseUrl: upstream.url },
          },
          models: {
            "with-fallback": {
              candidates: [
                { provider: "first", model: "gpt-4o-mini" },
                { provider: "second", model: "gpt-4o-mini" },
              ],
            },
          },
          retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 2 },
          cooldown: { consecutiveFailures: 100, minCallsForRate: 100 },
        },
        "test",
        {},
      ),
    });
    await startLean();
    const before = await scrape();
    upstream.enqueue(
      { kind: "error", status: 500, message: "boom" },
      { kind: "text", text: "the quiet answer" },
    );
    const caller = callerTrace();
    const res = await fetch(`${root}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        traceparent: caller.header,
      },
      body: JSON.stringify({
        model: "with-fallback",
        messages: [{ role: "user", content: "the secret plan for tuesday" }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-tollgate-fallback-index")).toBe("1");
    expect((await res.json()).choices[0].message.content).toBe("the quiet answer");
    const requestId = res.headers.get("x-request-id")!;

    const spans = await spansOf(caller.traceId, (s) => s.some((x) => x.name === "POST /v1/chat/completions"));
    const server = spans.find((s) => s.name === "POST /v1/chat/completions")!;
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.attributes["http.response.status_code"]).toBe(200);
    const call = spans.find((s) => s.name === "tollgate api")!;
    expect(call.parentSpanId).toBe(server.spanId);
    expect(call.attributes).toMatchObject({ "tollgate.turn_id": requestId, "tollgate.fallback_index": 1 });
    const chats = spans.filter((s) => s.name === "chat gpt-4o-mini");
    expect(chats).toHaveLength(2);
    expect(chats.every((c) => c.parentSpanId === call.spanId)).toBe(true);
    const [failed, answered] = [...chats].sort(
      (a, b) =>
        Number(a.attributes["tollgate.fallback_index"]) - Number(b.attributes["tollgate.fallback_index"]),
    );
    expect(failed!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "tollgate.provider": "first",
      "tollgate.fallback_index": 0,
      "error.type": "server",
      "tollgate.upstream_status": 500,
    });
    expect(failed!.status.code).toBe(2);
    expect(answered!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      // What the provider said answered (the fake names a dated snapshot).
      "gen_ai.response.model": expect.stringMatching(/^gpt-4o-mini/),
      "gen_ai.usage.input_tokens": expect.any(Number),
      "gen_ai.usage.output_tokens": expect.any(Number),
      "gen_ai.response.finish_reasons": ["stop"],
      "tollgate.tenant_id": tenantId,
      "tollgate.alias": "with-fallback",
      "tollgate.provider": "second",
      "tollgate.fallback_index": 1,
      "tollgate.cost_usd": expect.any(Number),
    });
    expect(attributeText(spans)).not.toMatch(/secret plan|quiet answer/);

    // One log line for the call, with its fields and none of its words.
    const lines = callLines(info).filter((l) => l.fields.requestId === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "call",
      fields: {
        tenantId,
        keyId: expect.any(String),
        source: "api",
        alias: "with-fallback",
        provider: "second",
        model: expect.stringMatching(/^gpt-4o-mini/),
        status: "success",
        fallbackIndex: 1,
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        cost: expect.stringMatching(/^0\.\d+$/),
        latencyMs: expect.any(Number),
        traceId: caller.traceId,
      },
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/secret plan|quiet answer/);

    // The counters moved: a request, its tokens and cost, a fallback, the failed attempt.
    const after = await scrape();
    const call_ = { tenant: tenantId, alias: "with-fallback", provider: "second", source: "api" };
    expect(sample(after, "tollgate_requests_total", { ...call_, status: "success" })).toBe(
      sample(before, "tollgate_requests_total", { ...call_, status: "success" }) + 1,
    );
    expect(sample(after, "tollgate_tokens_total", { ...call_, class: "output" })).toBeGreaterThan(
      sample(before, "tollgate_tokens_total", { ...call_, class: "output" }),
    );
    expect(sample(after, "tollgate_cost_usd_total", call_)).toBeGreaterThan(
      sample(before, "tollgate_cost_usd_total", call_),
    );
    expect(sample(after, "tollgate_fallbacks_total", { tenant: tenantId, alias: "with-fallback" })).toBe(
      sample(before, "tollgate_fallbacks_total", { tenant: tenantId, alias: "with-fallback" }) + 1,
    );
    expect(
      sample(after, "tollgate_upstream_errors_total", { provider: "first", error_class: "server" }),
    ).toBe(
      sample(before, "tollgate_upstream_errors_total", { provider: "first", error_class: "server" }) + 1,
    );
    expect(sample(after, "tollgate_request_duration_seconds_count", { alias: "with-fallback" })).toBe(
      sample(before, "tollgate_request_duration_seconds_count", { alias: "with-fallback" }) + 1,
    );
    expect(after).toMatch(/^tollgate_nodejs_eventloop_lag_seconds /m);
    expect(after).toMatch(/^tollgate_ledger_queue_rows\{batcher="v1"\} \d+/m);
  });

  it("/metrics refuses a request without the token or with a wrong one (401), on the lean server and the app, and counts a rate-limit refusal", async () => {
    await app.rebuild({ env: { ...process.env, METRICS_TOKEN: TOKEN } });
    await startLean();
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: TOKEN }] as Record<
      string,
      string
    >[]) {
      const lean = await fetch(`${root}/metrics`, { headers });
      expect(lean.status).toBe(401);
      expect(await lean.text()).not.toContain("tollgate_");
      const next = await metricsRoute.GET(new Request("http://app/metrics", { headers }));
      expect(next.status).toBe(401);
    }
    const ok = await metricsRoute.GET(
      new Request("http://app/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    expect(await ok.text()).toContain("# TYPE tollgate_requests_total counter");

    const before = await scrape();
    const ask = (traceparent: string) =>
      fetch(`${root}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${limited.secret}`,
          "content-type": "application/json",
          traceparent,
        },
        body: JSON.stringify({ model: "offline-demo", messages: [{ role: "user", content: "hello" }] }),
      });
    const [passed, limitedOut] = [callerTrace(), callerTrace()];
    const statuses = [(await ask(passed.header)).status, (await ask(limitedOut.header)).status];
    expect(statuses).toEqual([200, 429]);
    // The rate-limit step has its span in each call's trace, under the call: passed, then refused.
    for (const [caller, outcome] of [
      [passed, "pass"],
      [limitedOut, "refused"],
    ] as const) {
      const spans = await spansOf(caller.traceId, (s) => s.some((x) => x.name === "tollgate.rate_limit"));
      const step = spans.find((s) => s.name === "tollgate.rate_limit")!;
      expect(step.attributes).toMatchObject({
        "tollgate.step.outcome": outcome,
        "tollgate.tenant_id": tenantId,
      });
      expect(step.parentSpanId).toBe(spans.find((s) => s.name === "tollgate api")!.spanId);
    }
    expect(
      receiver.trace(limitedOut.traceId).find((s) => s.name === "POST /v1/chat/completions")!.attributes,
    ).toMatchObject({ "http.response.status_code": 429 });
    const after = await scrape();
    expect(sample(after, "tollgate_rate_limit_refusals_total", { tenant: tenantId, source: "api" })).toBe(
      sample(before, "tollgate_rate_limit_refusals_total", { tenant: tenantId, source: "api" }) + 1,
    );
    expect(
      sample(after, "tollgate_requests_total", { tenant: tenantId, alias: "offline-demo", status: "failed" }),
    ).toBe(
      sample(before, "tollgate_requests_total", {
        tenant: tenantId,
        alias: "offline-demo",
        status: "failed",
      }) + 1,
    );
    // Both calls wrote their one line, the refused one too.
    expect(callLines(info).map((l) => l.fields.status)).toEqual(["success", "failed"]);
    // A call refused before it is a model call (a bad key) writes its one line too, without the key.
    const bad = await fetch(`${root}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer tg_not_a_key", "content-type": "application/json" },
      body: JSON.stringify({ model: "offline-demo", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(bad.status).toBe(401);
    const refused = info.mock.calls.filter(([, msg]) => msg === "request").map(([fields]) => fields);
    expect(refused).toEqual([
      {
        requestId: bad.headers.get("x-request-id"),
        method: "POST",
        path: "/v1/chat/completions",
        status: 401,
        latencyMs: expect.any(Number),
      },
    ]);
  });
  it("a guardrail rule's check has its span in the call's trace, and what it did counts in tollgate_guardrail_actions_total", async () => {
    await app.rebuild({ env: { ...process.env, METRICS_TOKEN: TOKEN } });
    await startLean();
    await app.db.insert(guardrailPolicy).values({
      tenantId,
      rules: [
        {
          id: "pii",
          name: "PII",
          stage: "input",
          check: { type: "pii" },
          action: "redact",
          onError: "closed",
        },
      ],
    });
    processGuardrailCache().forget(tenantId);
    try {
      const before = await scrape();
      const caller = callerTrace();
      const res = await fetch(`${root}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          traceparent: caller.header,
        },
        body: JSON.stringify({
          model: "offline-demo",
          messages: [{ role: "user", content: "mail ada.lovelace@example.com" }],
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-tollgate-guardrail")).toBe('redacted;rule="pii";entities="email"');
      const spans = await spansOf(caller.traceId, (s) =>
        s.some((x) => x.name === "tollgate.guardrail.check"),
      );
      const check = spans.find((s) => s.name === "tollgate.guardrail.check")!;
      expect(check.attributes).toMatchObject({
        "tollgate.guardrail.rule_id": "pii",
        "tollgate.guardrail.stage": "input",
        "tollgate.guardrail.check": "pii",
        "tollgate.guardrail.action": "redact",
        "tollgate.guardrail.hits": 1,
      });
      expect(check.parentSpanId).toBe(spans.find((s) => s.name === "tollgate api")!.spanId);
      expect(spans.some((s) => s.name === "tollgate.guardrails")).toBe(true);
      expect(attributeText(spans)).not.toContain("ada.lovelace");
      const after = await scrape();
      const labels = { tenant: tenantId, source: "api", action: "redacted" };
      expect(sample(after, "tollgate_guardrail_actions_total", labels)).toBe(
        sample(before, "tollgate_guardrail_actions_total", labels) + 1,
      );
    } finally {
      await app.db.delete(guardrailPolicy).where(eq(guardrailPolicy.tenantId, tenantId));
      processGuardrailCache().forget(tenantId);
    }
  });
});

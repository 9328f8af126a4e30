// Routing strategies under load through the real gateway and SDKs, against fake providers: the weighted split over
// 2,000 calls, and least-latency leaving a candidate that slowed down.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";

let one: FakeProvider;
let two: FakeProvider;
beforeAll(async () => {
  [one, two] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
});
beforeEach(() => {
  one.reset();
  two.reset();
});

/** A seeded generator (mulberry32): the split is the strategy's, not the luck of one run. */
function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A gateway over the two fakes with `models`; `extra` adds to (or replaces) the config's other fields. */
function gateway(
  models: Record<string, unknown>,
  random?: () => number,
  extra: Record<string, unknown> = {},
) {
  return new Gateway(
    parseGatewayConfig(
      {
        providers: { one: { type: "openai", baseUrl: one.url }, two: { type: "openai", baseUrl: two.url } },
        models,
        retry: { maxRetries: 0 },
        ...extra,
      },
      "routing-test.json",
      {},
    ),
    random ? { random } : {},
  );
}
const ask = (model: string) => ({ model, messages: [{ role: "user" as const, content: "hi" }] });

describe("several keys for one provider", () => {
  it("spreads calls over every key, and keeps serving when one of three is revoked or rate-limited", async () => {
    const keyed = await startFakeOpenAI(0, { keys: ["sk-a", "sk-c"] }); // sk-b was revoked
    try {
      const gw = new Gateway(
        parseGatewayConfig(
          {
            providers: {
              oa: { type: "openai", baseUrl: keyed.url, apiKeyEnvs: ["KEY_A", "KEY_B", "KEY_C"] },
            },
            models: { gpt: { candidates: [{ provider: "oa", model: "gpt-4o-mini" }] } },
            retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
          },
          "keys.json",
          { KEY_A: "sk-a", KEY_B: "sk-b", KEY_C: "sk-c" },
        ),
      );
      const answers = [];
      for (let i = 0; i < 12; i++) answers.push(await gw.chat(ask("gpt")));
      expect(answers.every((a) => a.stamp.servedProvider === "oa")).toBe(true);
      const used = keyed.requests.map((r) => r.headers.authorization);
      expect(new Set(used)).toEqual(new Set(["Bearer sk-a", "Bearer sk-b", "Bearer sk-c"]));
      // The revoked key was tried until it cooled down (3 refusals), then left alone.
      expect(used.filter((k) => k === "Bearer sk-b")).toHaveLength(3);
      expect(used.filter((k) => k === "Bearer sk-a").length).toBeGreaterThanOrEqual(4);
      expect(used.filter((k) => k === "Bearer sk-c").length).toBeGreaterThanOrEqual(4);

      // A 429 on one key moves to the next key at once, with no retry on the same key and no fallback notice.
      keyed.reset();
      keyed.enqueue({ kind: "error", status: 429, message: "Rate limit reached" });
      const events = [];
      for await (const e of gw.stream(ask("gpt"))) events.push(e);
      expect(events.at(-1)).toMatchObject({ type: "done" });
      expect(events.some((e) => e.type === "fallback")).toBe(false);
      const [limited, served] = keyed.requests.map((r) => r.headers.authorization);
      expect(limited).not.toBe(served);
      expect(keyed.requests).toHaveLength(2);
    } finally {
      await keyed.close();
    }
  });
});

describe("active health checks", () => {
  it("bring a deployment back as soon as a probe answers, long before its cooldown ends", async () => {
    const gw = gateway(
      {
        pair: {
          candidates: [
            { provider: "one", model: "gpt-4o-mini" },
            { provider: "two", model: "gpt-4o-mini" },
          ],
        },
      },
      undefined,
      { cooldown: { consecutiveFailures: 1, cooldownMs: 600_000, healthCheckMs: 100 } },
    );
    try {
      one.enqueue({ kind: "error", status: 503 }, { kind: "error", status: 503 });
      expect((await gw.chat(ask("pair"))).stamp.servedProvider).toBe("two");
      expect(gw.cooldowns.isCoolingDown("one/gpt-4o-mini")).toBe(true);
      // The routing page's rows: the breaker open on the first candidate until its time, the second healthy.
      const [first, second] = gw.routingTable();
      expect(first).toMatchObject({ id: "1-1", provider: "one", state: "cooling", calls: 1, errorRate: 100 });
      expect(Date.parse(first!.coolingUntil!)).toBeGreaterThan(Date.now() + 500_000);
      expect(second).toMatchObject({ id: "1-2", provider: "two", state: "healthy", calls: 1, errorRate: 0 });
      expect(second!.latencyMs).toBeGreaterThanOrEqual(0);
      // The first probe still fails (the queued 503); the next answers.
      await gw.checkHealth();
      expect(gw.cooldowns.isCoolingDown("one/gpt-4o-mini")).toBe(true);
      gw.startHealthChecks();
      const until = Date.now() + 5_000;
      while (gw.cooldowns.isCoolingDown("one/gpt-4o-mini") && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      expect(gw.cooldowns.isCoolingDown("one/gpt-4o-mini")).toBe(false);
      const probe = one.requests.at(-1)!;
      expect(probe.body).toMatchObject({
        max_completion_tokens: 1,
        messages: [{ role: "user", content: "ping" }],
      });
      expect((await gw.chat(ask("pair"))).stamp.servedProvider).toBe("one");
      // A deployment that is not cooling down gets no probe.
      const before = one.requests.length;
      await gw.checkHealth();
      expect(one.requests.length).toBe(before);
    } finally {
      gw.close();
    }
  });
});

describe("routing strategies under load", () => {
  it("weighted 70/30 sends 70 % ± 3 % of 2,000 calls to the heavier candidate, and stamps the strategy", async () => {
    const gw = gateway(
      {
        split: {
          strategy: "weighted",
          candidates: [
            { provider: "one", model: "gpt-4o-mini", weight: 70 },
            { provider: "two", model: "gpt-4o-mini", weight: 30 },
          ],
        },
      },
      seeded(42),
    );
    const served = { one: 0, two: 0 };
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => gw.chat(ask("split"))));
      for (const a of answers) served[a.stamp.servedProvider as "one" | "two"]++;
    }
    expect(served.one + served.two).toBe(2_000);
    expect(Math.abs(served.one / 2_000 - 0.7)).toBeLessThanOrEqual(0.03);
    expect(one.requests.length).toBe(served.one);
    const last = await gw.chat(ask("split"));
    expect(last.stamp.strategy).toBe("weighted");
    expect(last.stamp.fallbackIndex).toBe(0);
  });

  it("least-latency moves away from a candidate that slowed down within 50 calls", async () => {
    const gw = gateway({
      fastest: {
        strategy: "least-latency",
        candidates: [
          { provider: "one", model: "gpt-4o-mini" },
          { provider: "two", model: "gpt-4o-mini" },
        ],
      },
    });
    one.setDefault({ kind: "text", text: "one", delayMs: 5 });
    // Gaps wide enough that a loaded machine's jitter does not reorder them.
    two.setDefault({ kind: "text", text: "two", delayMs: 100 });
    const servedBy = async () => (await gw.chat(ask("fastest"))).stamp.servedProvider;
    const warm: (string | null)[] = [];
    for (let i = 0; i < 10; i++) warm.push(await servedBy());
    expect(warm.slice(2)).toEqual(Array(8).fill("one"));

    one.setDefault({ kind: "text", text: "one", delayMs: 1_000 });
    let calls = 0;
    while ((await servedBy()) === "one") {
      calls++;
      expect(calls).toBeLessThan(50);
    }
    const after: (string | null)[] = [];
    for (let i = 0; i < 10; i++) after.push(await servedBy());
    expect(after).toEqual(Array(10).fill("two"));
    expect((await gw.chat(ask("fastest"))).stamp.strategy).toBe("least-latency");
  });

  it("a weighted alias whose chosen candidate fails falls back to the other, as fallback does", async () => {
    const gw = gateway(
      {
        split: {
          strategy: "weighted",
          candidates: [
            { provider: "one", model: "gpt-4o-mini", weight: 1 },
            { provider: "two", model: "gpt-4o-mini", weight: 1 },
          ],
        },
      },
      () => 0,
    );
    one.enqueue({ kind: "error", status: 503 });
    const res = await gw.chat(ask("split"));
    expect(res.stamp).toMatchObject({ servedProvider: "two", fallbackIndex: 1, strategy: "weighted" });
  });
});

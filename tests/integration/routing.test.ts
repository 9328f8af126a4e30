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

function gateway(models: Record<string, unknown>, random?: () => number) {
  return new Gateway(
    parseGatewayConfig(
      {
        providers: { one: { type: "openai", baseUrl: one.url }, two: { type: "openai", baseUrl: two.url } },
        models,
        retry: { maxRetries: 0 },
      },
      "routing-test.json",
      {},
    ),
    random ? { random } : {},
  );
}
const ask = (model: string) => ({ model, messages: [{ role: "user" as const, content: "hi" }] });

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

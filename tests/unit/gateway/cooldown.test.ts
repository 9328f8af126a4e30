import { describe, expect, it } from "vitest";
import { DEFAULT_COOLDOWN } from "@/lib/gateway/config";
import { CooldownTracker } from "@/lib/gateway/cooldown";

describe("deployment cooldown", () => {
  const make = () => {
    let now = 1_000_000;
    const tracker = new CooldownTracker(DEFAULT_COOLDOWN, () => now);
    return { tracker, advance: (ms: number) => (now += ms) };
  };

  it("cools a deployment down after three failures in a row, then lets one probe through", () => {
    const { tracker, advance } = make();
    tracker.recordFailure("a");
    tracker.recordFailure("a");
    expect(tracker.tryAcquire("a").ok).toBe(true);
    tracker.recordFailure("a");
    expect(tracker.tryAcquire("a")).toEqual({ ok: false, retryInMs: 30_000 });
    advance(30_000);
    expect(tracker.tryAcquire("a").ok).toBe(true); // the probe
    expect(tracker.tryAcquire("a").ok).toBe(false); // others wait for its verdict
    tracker.recordSuccess("a");
    expect(tracker.tryAcquire("a").ok).toBe(true);
  });

  it("cools down again at once when the probe fails", () => {
    const { tracker, advance } = make();
    for (let i = 0; i < 3; i++) tracker.recordFailure("a");
    advance(30_001);
    expect(tracker.tryAcquire("a").ok).toBe(true);
    tracker.recordFailure("a");
    expect(tracker.tryAcquire("a").ok).toBe(false);
  });

  it("cools down when more than half the calls in the last minute failed, even without a streak", () => {
    const { tracker } = make();
    for (const ok of [false, true, false, true, false])
      ok ? tracker.recordSuccess("a") : tracker.recordFailure("a");
    expect(tracker.tryAcquire("a").ok).toBe(false);
  });

  it("forgets failures older than the window", () => {
    const { tracker, advance } = make();
    tracker.recordFailure("a");
    tracker.recordSuccess("a");
    tracker.recordFailure("a");
    advance(61_000);
    tracker.recordSuccess("a");
    tracker.recordFailure("a");
    expect(tracker.tryAcquire("a").ok).toBe(true);
    expect(tracker.tryAcquire("b").ok).toBe(true);
  });
});

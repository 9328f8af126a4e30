import { describe, expect, it } from "vitest";
import { DEFAULT_COOLDOWN } from "@/lib/gateway/config";
import { type CooldownChange, CooldownTracker } from "@/lib/gateway/cooldown";

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

  it("a call sent before the trip that succeeds after it does not end the cooldown, here or on another instance", () => {
    let now = 1_000_000;
    const told: CooldownChange[] = [];
    const tracker = new CooldownTracker(DEFAULT_COOLDOWN, () => now, { publish: (c) => told.push(c) });
    const sentBefore = now;
    now += 10;
    // Another instance found the deployment failing; this one still has a call in flight to it.
    tracker.apply({ key: "a", state: "cooled", until: now + 30_000, at: now });
    now += 5;
    tracker.recordSuccess("a", sentBefore);
    expect(tracker.tryAcquire("a").ok).toBe(false);
    expect(told).toEqual([]);
    // The probe, sent after the cooldown ended, brings it back and says so.
    now += 30_000;
    expect(tracker.tryAcquire("a").ok).toBe(true);
    tracker.recordSuccess("a", now);
    expect(tracker.tryAcquire("a").ok).toBe(true);
    expect(told).toEqual([{ key: "a", state: "recovered", at: now }]);
  });

  it("a call sent after another instance's trip but before the news arrived does not end the cooldown either", () => {
    let now = 1_000_000;
    const told: CooldownChange[] = [];
    const tracker = new CooldownTracker(DEFAULT_COOLDOWN, () => now, { publish: (c) => told.push(c) });
    const trippedThere = now;
    now += 20;
    // Sent after the other instance's trip, while this one had not heard of it (the bus takes a moment).
    const sentMeanwhile = now;
    now += 30;
    tracker.apply({ key: "a", state: "cooled", until: trippedThere + 30_000, at: trippedThere });
    now += 5;
    tracker.recordSuccess("a", sentMeanwhile);
    expect(tracker.tryAcquire("a").ok).toBe(false);
    expect(told).toEqual([]);
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

describe("deployment cooldown, shared with other instances", () => {
  const make = (keys?: string[]) => {
    let now = 1_000_000;
    const told: CooldownChange[] = [];
    const tracker = new CooldownTracker(DEFAULT_COOLDOWN, () => now, {
      publish: (change) => told.push(change),
      ...(keys ? { keys } : {}),
    });
    return { tracker, told, advance: (ms: number) => (now += ms), now: () => now };
  };

  it("tells of a trip and of a probe that brings the deployment back, never of an ordinary call", () => {
    const { tracker, told, advance, now } = make();
    tracker.recordSuccess("a");
    tracker.recordFailure("a");
    tracker.recordFailure("a");
    expect(told).toEqual([]);
    tracker.recordFailure("a");
    expect(told).toEqual([{ key: "a", state: "cooled", until: now() + 30_000, at: now() }]);
    advance(30_000);
    expect(tracker.tryAcquire("a").ok).toBe(true);
    tracker.recordFailure("a");
    expect(told.at(-1)).toEqual({ key: "a", state: "cooled", until: now() + 30_000, at: now() });
    advance(30_000);
    tracker.tryAcquire("a");
    tracker.recordSuccess("a");
    expect(told.at(-1)).toEqual({ key: "a", state: "recovered", at: now() });
    tracker.recordSuccess("a");
    expect(told).toHaveLength(3);
  });

  it("cools until the moment another instance says, and comes back when it says", () => {
    const { tracker, told, now } = make(["a"]);
    tracker.apply({ key: "a", state: "cooled", until: now() + 5_000, at: now() });
    expect(tracker.tryAcquire("a")).toEqual({ ok: false, retryInMs: 5_000 });
    expect(tracker.coolingUntil("a")).toBe(now() + 5_000);
    tracker.apply({ key: "a", state: "recovered", at: now() + 1 });
    expect(tracker.coolingUntil("a")).toBe(0);
    expect(tracker.tryAcquire("a").ok).toBe(true);
    expect(tracker.tryAcquire("a").ok).toBe(true);
    // What it was told is not told again.
    expect(told).toEqual([]);
  });

  it("drops news older than its own, news that has run out, and news of a deployment it does not have", () => {
    const { tracker, now, advance } = make(["a"]);
    for (let i = 0; i < 3; i++) tracker.recordFailure("a");
    const tripped = now();
    advance(10);
    // A recovery seen elsewhere before this instance's own trip does not end it.
    tracker.apply({ key: "a", state: "recovered", at: tripped - 1 });
    expect(tracker.isCoolingDown("a")).toBe(true);
    tracker.apply({ key: "b", state: "cooled", until: now() + 5_000, at: now() });
    expect(tracker.isCoolingDown("b")).toBe(false);
    const { tracker: fresh, now: freshNow } = make(["a"]);
    fresh.apply({ key: "a", state: "cooled", until: freshNow(), at: freshNow() - 30_000 });
    expect(fresh.isCoolingDown("a")).toBe(false);
  });
});

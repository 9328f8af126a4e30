import { describe, expect, it, vi } from "vitest";
import { notifyCrossings, onRunCeilingCrossed, runCeilingKey } from "@/lib/pipeline";

describe("a run ceiling's counter key", () => {
  it("names the ceiling, the run (as given when short and plain) and the measure", () => {
    expect(runCeilingKey("key", "k-1", "run-42", "usd")).toBe("run:key:k-1:run-42:usd");
    expect(runCeilingKey("tenant", "t-1", "job.7@batch", "calls")).toBe("run:tenant:t-1:job.7@batch:calls");
  });

  it("hashes a run id that is long or has other characters, so keys stay short and never meet a plain id", () => {
    const spaced = runCeilingKey("key", "k-1", "my run", "tokens");
    expect(spaced).toMatch(/^run:key:k-1:#[\w-]{43}:tokens$/);
    expect(runCeilingKey("key", "k-1", "x".repeat(128), "tokens")).toMatch(/^run:key:k-1:#[\w-]{43}:tokens$/);
    expect(runCeilingKey("key", "k-1", "my run ", "tokens")).not.toBe(spaced);
  });
});

describe("onRunCeilingCrossed", () => {
  const base = {
    tenantId: "t",
    scope: "key" as const,
    subjectId: "k",
    runId: "r",
    measure: "calls" as const,
  };

  it("tells each listener once per threshold passed (50, 80, 100 %), survives a failing one, and can be removed", async () => {
    const heard: unknown[] = [];
    const stopFailing = onRunCeilingCrossed(() => {
      throw new Error("listener broke");
    });
    const stopRejecting = onRunCeilingCrossed(async () => Promise.reject(new Error("rejected")));
    const stop = onRunCeilingCrossed((c) => heard.push(c));
    expect(() => notifyCrossings({ ...base, ceiling: 10 }, 4, 5)).not.toThrow();
    notifyCrossings({ ...base, ceiling: 10 }, 5, 7); // between 50 and 80 %: nothing new
    notifyCrossings({ ...base, ceiling: 10 }, 7, 10); // 80 and 100 % at once: told once
    await vi.waitFor(() => expect(heard).toHaveLength(2));
    expect(heard).toEqual([
      { ...base, ceiling: 10, used: 5 },
      { ...base, ceiling: 10, used: 10 },
    ]);
    stop();
    stopFailing();
    stopRejecting();
    notifyCrossings({ ...base, ceiling: 10 }, 0, 10);
    expect(heard).toHaveLength(2);
  });
});

import { describe, expect, it } from "vitest";
import { ClusterBus } from "@/lib/cluster";

describe("a start waits for the cluster bus to listen", () => {
  it("is told at once when the bus listens, and after the wait when it does not", async () => {
    const alone = new ClusterBus({}).start();
    expect(await alone.listening(1_000)).toBe(true);
    await alone.close();
    // Never started: it cannot listen, and the wait ends on time.
    const idle = new ClusterBus({});
    const started = performance.now();
    expect(await idle.listening(50)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    // A Redis that does not answer: not listening within the wait (the bus goes on trying until closed).
    const unreachable = new ClusterBus({ redisUrl: "redis://127.0.0.1:1", retryMs: 50 }).start();
    expect(await unreachable.listening(300)).toBe(false);
    await unreachable.close();
  });
});

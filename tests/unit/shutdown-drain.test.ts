import { describe, expect, it } from "vitest";
import { withLedgerBackpressure } from "@/features/v1/server";
import { refuseTooLarge } from "@/features/v1/server/handler";
import { type BatchLag, registerBatcher } from "@/lib/core/errors/failures";
import { isDraining, startDraining } from "@/lib/core/process/lifecycle";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { drainBatchers } from "@/lib/governance/shutdown";
import { webHandler } from "@/lib/http/exchange";

/** A batcher whose calls end one at a time, some while a flush is already running. */
function fakeBatcher(name: string, inProgress: number) {
  let running = inProgress;
  let waiting = 0;
  const written: number[] = [];
  const lag = (): BatchLag => ({
    callsInProgress: running,
    rowsWaiting: waiting,
    oldestAgeMs: 0,
    batchesInFlight: 0,
    callsWaitingForRoom: 0,
    rowsWritten: written.length,
    rowsFailed: 0,
    callsRefused: 0,
    limits: { maxRows: 1000, maxAgeMs: 2000, writers: 2 },
  });
  return {
    name,
    stats: lag,
    async flush() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (; waiting > 0; waiting--) written.push(1);
      // A call answered while this flush ran: its row waits for the next flush.
      if (running > 0) {
        running -= 1;
        waiting += 1;
      }
    },
    written,
  };
}

describe("draining the ledger on shutdown", () => {
  it("flushes again until no call is in progress and no row waits, so a call answered mid-flush is written", async () => {
    const batcher = fakeBatcher("drain-test", 3);
    registerBatcher(batcher);
    expect(await drainBatchers(Date.now() + 2_000)).toBe(true);
    expect(batcher.written).toHaveLength(3);
    expect(batcher.stats()).toMatchObject({ callsInProgress: 0, rowsWaiting: 0 });
  });

  it("gives up at the deadline when a call never ends", async () => {
    const stuck = fakeBatcher("drain-stuck", 0);
    stuck.stats = () => ({ ...fakeBatcher("x", 0).stats(), callsInProgress: 1 });
    registerBatcher(stuck);
    const started = Date.now();
    expect(await drainBatchers(Date.now() + 200)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    registerBatcher(fakeBatcher("drain-stuck", 0)); // idle again, for the tests after this one
  });

  it("a draining process refuses new /v1 calls with 503 and Retry-After, before anything is sent upstream", async () => {
    let handled = 0;
    const recorder = { admit: async () => true } as unknown as BatchedGovernanceRecorder;
    const handler = webHandler(
      withLedgerBackpressure(recorder, async () => {
        handled += 1;
        return { status: 200, headers: {}, body: "{}" };
      }),
      { maxBytes: () => 1024, tooLarge: refuseTooLarge },
    );
    const call = () =>
      handler(new Request("http://gw.test/v1/chat/completions", { method: "POST", body: "{}" }));
    expect((await call()).status).toBe(200);
    expect(isDraining()).toBe(false);
    startDraining();
    const refused = await call();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await refused.json()).error.code).toBe("shutting_down");
    expect(handled).toBe(1);
  });
});

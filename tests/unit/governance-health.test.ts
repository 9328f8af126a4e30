import { describe, expect, it, vi } from "vitest";

describe("process-wide governance counters", () => {
  it("are shared by separately loaded copies of the module (as Next's route bundles load it)", async () => {
    vi.resetModules();
    const first = await import("@/lib/core/errors/failures");
    vi.resetModules();
    const second = await import("@/lib/core/errors/failures");
    // Two module instances, as a route bundle and instrumentation each get one.
    expect(second).not.toBe(first);
    const before = { ...first.governanceFailures };
    const cleanedBefore = first.cleanedValues();
    second.countFailure("conversation");
    second.countFailure("ledger", 2);
    second.countCleaned();
    expect(first.governanceFailures.conversation).toBe(before.conversation + 1);
    expect(first.governanceFailures.ledger).toBe(before.ledger + 2);
    expect(first.cleanedValues()).toBe(cleanedBefore + 1);

    const stats = { name: "v1-test", flush: async () => {}, stats: () => ({}) as never };
    first.registerBatcher(stats);
    expect(second.batchers()).toContain(stats);
  });

  it("reach /api/health's report from another copy of the module", async () => {
    vi.resetModules();
    const counters = await import("@/lib/core/errors/failures");
    vi.resetModules();
    // No database in a unit test: health reports it unreachable, with the counters all the same.
    vi.doMock("@/db", () => ({
      getDatabase: async () => {
        throw new Error("no database in this test");
      },
    }));
    const { getHealth } = await import("@/lib/health");
    const before = (await getHealth()).governanceWriteFailures.audit;
    counters.countFailure("audit");
    expect((await getHealth()).governanceWriteFailures.audit).toBe(before + 1);
    vi.doUnmock("@/db");
  });
});

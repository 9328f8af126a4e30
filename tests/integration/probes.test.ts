import { afterAll, afterEach, describe, expect, it } from "vitest";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { type DatabaseHandle, installDatabase } from "@/db";
import { markStarted, startDraining } from "@/lib/core/process/lifecycle";
import { setProcessSlot } from "@/lib/core/process/process-state";
import { forgetDatabaseCheck } from "@/lib/probes";
import { createMigratedDatabase, type TestDatabase } from "../helpers/db";

describe("the app's probes", () => {
  let test: TestDatabase;
  afterEach(() => forgetDatabaseCheck());
  afterAll(async () => {
    installDatabase(undefined);
    // This process's lifecycle back to a fresh start, for whatever runs after this file.
    setProcessSlot("lifecycle", undefined);
    await test?.drop();
  });

  it("readiness: 503 while starting, 200 once started with its database, 503 when the database hangs, 503 once draining; liveness 200 throughout", async () => {
    setProcessSlot("lifecycle", undefined);
    test = await createMigratedDatabase("pglite");
    installDatabase(async () => test.handle);
    const answer = async () => {
      const res = await ready();
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
    };
    expect(await answer()).toEqual({
      status: 503,
      retryAfter: "1",
      body: { ready: false, reason: "starting" },
    });
    expect(live().status).toBe(200);

    markStarted();
    expect(await answer()).toEqual({ status: 200, retryAfter: null, body: { ready: true, reason: null } });

    // A database that takes no queries any more (a network partition): the check gives up after its timeout.
    process.env.TOLLGATE_READY_DB_TIMEOUT_MS = "100";
    const hanging = {
      ...test.handle,
      db: { execute: () => new Promise(() => {}) },
    } as unknown as DatabaseHandle;
    installDatabase(async () => hanging);
    forgetDatabaseCheck();
    const started = Date.now();
    expect((await answer()).body).toEqual({ ready: false, reason: "database unreachable" });
    expect(Date.now() - started).toBeLessThan(1_000);
    // The answer is reused for a second: a burst of probes costs one query.
    installDatabase(async () => test.handle);
    expect((await answer()).status).toBe(503);
    forgetDatabaseCheck();
    expect((await answer()).status).toBe(200);
    delete process.env.TOLLGATE_READY_DB_TIMEOUT_MS;

    startDraining();
    expect(await answer()).toEqual({
      status: 503,
      retryAfter: "1",
      body: { ready: false, reason: "draining" },
    });
    expect(live().status).toBe(200);
  });
});

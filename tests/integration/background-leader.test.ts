import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { maintenanceJobs } from "@/lib/governance/maintenance";
import { backgroundWork, type LeaderWork, workerModeFromEnv } from "@/server/background";
import { type Container, createContainer, installContainer } from "@/server/container";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("where background work runs", () => {
  it("inline in the app by default; only in the worker with TOLLGATE_WORKER=external; anything else is refused", () => {
    expect(workerModeFromEnv({})).toBe("inline");
    expect(workerModeFromEnv({ TOLLGATE_WORKER: "inline" })).toBe("inline");
    expect(workerModeFromEnv({ TOLLGATE_WORKER: "External" })).toBe("external");
    expect(() => workerModeFromEnv({ TOLLGATE_WORKER: "yes" })).toThrow(/inline.*external/);
  });
});

describe.each(testDbKinds)("background work under one leader (%s)", (kind) => {
  let test: TestDatabase | undefined;
  const extra: DatabaseHandle[] = [];
  const apps: Container[] = [];
  const works: LeaderWork[] = [];
  afterEach(async () => {
    await Promise.all(works.splice(0).map((w) => w.stop()));
    await Promise.all(apps.splice(0).map((a) => a.close()));
    installContainer(undefined);
    await Promise.all(extra.splice(0).map((h) => h.close()));
    await test?.drop();
  });

  it("two app instances and one worker on one database run each maintenance job once; another takes over when the leader stops", async () => {
    test = await createMigratedDatabase(kind);
    // Three processes: on PostgreSQL each with its own connection pool (its own sessions; the app's default
    // size, since the jobs here all reach the first one's through getDatabase()); an embedded database belongs to
    // one process, so there the three share its handle.
    const handles =
      kind === "postgres"
        ? await Promise.all([0, 1, 2].map(() => openDatabase({ kind: "postgres", url: test!.url!, max: 10 })))
        : [test.handle, test.handle, test.handle];
    if (kind === "postgres") extra.push(...handles);
    const names = ["app-a", "app-b", "worker"];
    const runs: { by: string; job: string }[] = [];
    // The real jobs (sweeps, retention, reconciliation), all due at once when a process takes the lead, then not
    // again for an hour: each should run exactly once per leader.
    const jobs = maintenanceJobs().map((job) => ({ ...job, firstAfterMs: 0, everyMs: 3_600_000 }));
    for (const [i, handle] of handles.entries()) {
      const app = createContainer({ database: handle, demo: false });
      apps.push(app);
      if (i === 0) installContainer(app);
      works.push(
        backgroundWork(app, { jobs, checkMs: 100, onRun: (job) => runs.push({ by: names[i]!, job }) }),
      );
    }
    await Promise.all(works.map((w) => w.start()));
    const jobNames = jobs.map((j) => j.name).sort();
    await until("the first leader's runs", () => runs.length >= jobNames.length);
    // A few more check rounds: the followers keep trying, and must not get in.
    await new Promise((r) => setTimeout(r, 500));
    expect(works.filter((w) => w.leading)).toHaveLength(1);
    const first = works.findIndex((w) => w.leading);
    expect(runs.map((r) => r.job).sort()).toEqual(jobNames);
    expect(new Set(runs.map((r) => r.by))).toEqual(new Set([names[first]]));

    // The leader stops (SIGTERM): another process takes the lead within a check or two and runs each job once.
    await works[first]!.stop();
    await until("a new leader's runs", () => runs.length >= 2 * jobNames.length);
    await new Promise((r) => setTimeout(r, 500));
    expect(works.filter((w) => w.leading)).toHaveLength(1);
    const second = works.findIndex((w) => w.leading);
    expect(second).not.toBe(first);
    const after = runs.slice(jobNames.length);
    expect(after.map((r) => r.job).sort()).toEqual(jobNames);
    expect(new Set(after.map((r) => r.by))).toEqual(new Set([names[second]]));
  });
});

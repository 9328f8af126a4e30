import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { agentTask, sysAgentNotification } from "@/db/schema";
import { DrizzleTaskQueue } from "@/lib/agent/task-queue";
import { type TaskKind, TaskManager } from "@/lib/agent/tasks";
import { createConversation, DrizzleConversationStore } from "@/lib/governance/conversations";
import { useSeededAppDatabase } from "../helpers/app-db";
import { postgresAdminUrl, testDbKinds, withDatabase } from "../helpers/db";

describe.each(testDbKinds)("durable background tasks on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let member: string;
  let conversationId: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await db.delete(agentTask);
    await db.delete(sysAgentNotification);
    conversationId = (await createConversation(db, { tenantId: acme, userId: member })).id;
  });

  const ctx = () => ({ tenantId: acme, userId: member, role: "member" as const, conversationId });
  const echo: TaskKind = { description: "echo", run: async (text) => `echo: ${text}` };
  /** A new "process": its own runner and lease owner over the same database. */
  const manager = (kinds: Record<string, TaskKind>, database: Database = db, leaseMs = 60_000) =>
    new TaskManager(new DrizzleConversationStore(async () => database), kinds, {
      queue: new DrizzleTaskQueue(async () => database),
      leaseMs,
      pollMs: 20,
    });
  const notes = async () =>
    (
      await db.select().from(sysAgentNotification).where(eq(sysAgentNotification.sessionId, conversationId))
    ).map((n) => n.body);
  const ago = (ms: number) => new Date(Date.now() - ms);
  async function taskRow(values: Partial<typeof agentTask.$inferInsert>) {
    const [row] = await db
      .insert(agentTask)
      .values({ tenantId: acme, userId: member, conversationId, kind: "echo", input: "x", ...values })
      .returning();
    return row!;
  }

  it("runs a started task to its end in the database and queues its result to the conversation", async () => {
    const tasks = manager({ echo });
    const { taskId } = await tasks.start(ctx(), "echo", "the report");
    await tasks.idle();
    expect(await tasks.get(acme, conversationId, taskId)).toMatchObject({
      status: "succeeded",
      output: "echo: the report",
    });
    const [row] = await db.select().from(agentTask).where(eq(agentTask.id, taskId));
    expect(row).toMatchObject({ status: "done", attempts: 1, leaseOwner: null, role: "member" });
    expect(await notes()).toEqual([
      `<TASK_RESULT task_id="${taskId}" kind="echo" status="succeeded">\necho: the report\n</TASK_RESULT>`,
    ]);
    // Another tenant (or conversation) cannot see it.
    const globex = await app.tenantId("globex");
    await expect(tasks.get(globex, conversationId, taskId)).rejects.toThrow("not found");
    await expect(tasks.get(acme, conversationId, "not-a-uuid")).rejects.toThrow("not found");
  });

  it("survives a restart: a new runner picks up a queued task and one whose lease expired with its process", async () => {
    // What a process that died leaves behind: a task it queued but never claimed, and one it was running.
    const queued = await taskRow({ input: "never claimed" });
    const orphaned = await taskRow({
      input: "half done",
      status: "running",
      attempts: 1,
      leaseOwner: randomUUID(),
      leaseUntil: ago(1_000),
      startedAt: ago(120_000),
    });
    // One still held by a live runner elsewhere: not taken.
    const held = await taskRow({
      input: "someone else's",
      status: "running",
      attempts: 1,
      leaseOwner: randomUUID(),
      leaseUntil: ago(-60_000),
    });
    const restarted = manager({ echo });
    expect(await restarted.tick()).toBe(2);
    await restarted.idle();
    const rows = new Map((await db.select().from(agentTask)).map((r) => [r.id, r]));
    expect(rows.get(queued.id)).toMatchObject({ status: "done", result: "echo: never claimed", attempts: 1 });
    expect(rows.get(orphaned.id)).toMatchObject({ status: "done", result: "echo: half done", attempts: 2 });
    expect(rows.get(held.id)).toMatchObject({ status: "running", attempts: 1 });
    // Both results were delivered, merged into one pending notification.
    const [merged, ...rest] = await notes();
    expect(rest).toEqual([]);
    expect(merged!.match(/<TASK_RESULT /g)).toHaveLength(2);
  });

  it("gives a task up, once, after it was claimed maxAttempts times by processes that died", async () => {
    const task = await taskRow({
      status: "running",
      attempts: 3,
      leaseOwner: randomUUID(),
      leaseUntil: ago(1_000),
    });
    const ran: string[] = [];
    const [a, b] = [1, 2].map(() =>
      manager({
        echo: {
          description: "",
          run: async (t) => {
            ran.push(t);
            return "";
          },
        },
      }),
    );
    await Promise.all([a!.tick(), b!.tick()]);
    await Promise.all([a!.idle(), b!.idle()]);
    expect(ran).toEqual([]);
    expect(await a!.get(acme, conversationId, task.id)).toMatchObject({
      status: "failed",
      error: "the task was interrupted 3 times (the process running it stopped); it was given up",
    });
    const all = await notes();
    expect(all).toHaveLength(1);
    expect(all[0]!.match(/status="failed"/g)).toHaveLength(1);
  });

  it("two runners on one database never run one task twice", async () => {
    // Two processes: on Postgres each has its own connection pool.
    let second: DatabaseHandle | undefined;
    let otherDb = db;
    if (kind === "postgres") {
      const name = (await db.execute(sql`select current_database() as name`)) as unknown as {
        name: string;
      }[];
      second = await openDatabase({ kind: "postgres", url: withDatabase(postgresAdminUrl, name[0]!.name) });
      otherDb = second.db;
    }
    try {
      const runs = new Map<string, number>();
      const counting: TaskKind = {
        description: "counts",
        run: async (input) => {
          runs.set(input, (runs.get(input) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 5));
          return input;
        },
      };
      const queue = new DrizzleTaskQueue(async () => db);
      const ids: string[] = [];
      for (let i = 0; i < 24; i++)
        ids.push(
          (
            await queue.enqueue({
              tenantId: acme,
              conversationId,
              userId: member,
              role: "member",
              kind: "counts",
              input: `task ${i}`,
            })
          ).id,
        );
      const a = manager({ counts: counting });
      const b = manager({ counts: counting }, otherDb);
      a.startRunner();
      b.startRunner();
      try {
        await expect
          .poll(
            async () =>
              (
                await db
                  .select({ n: sql<number>`count(*)::int` })
                  .from(agentTask)
                  .where(eq(agentTask.status, "done"))
              )[0]!.n,
            { timeout: 20_000, interval: 50 },
          )
          .toBe(24);
      } finally {
        a.stopRunner();
        b.stopRunner();
        await Promise.all([a.idle(), b.idle()]);
      }
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(runs.size).toBe(24);
      const attempts = await db.select({ attempts: agentTask.attempts }).from(agentTask);
      expect(attempts.every((r) => r.attempts === 1)).toBe(true);
      expect((await notes()).join("\n").match(/<TASK_RESULT /g)).toHaveLength(24);
    } finally {
      await second?.close();
    }
  });

  it("a task stopped from another process sends nothing, and its runner drops it", async () => {
    let aborted = false;
    const waits: TaskKind = {
      description: "waits",
      run: (_input, c) =>
        new Promise((_resolve, reject) =>
          c.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          }),
        ),
    };
    const runner = manager({ waits }, db, 150);
    const { taskId } = await runner.start(ctx(), "waits", "");
    await expect.poll(async () => (await runner.get(acme, conversationId, taskId)).status).toBe("running");
    runner.startRunner();
    try {
      const elsewhere = manager({ waits });
      expect(await elsewhere.stop(acme, conversationId, taskId)).toEqual({ stopped: true });
      // The runner learns it at its next lease renewal, and stops working on it.
      await expect.poll(() => aborted).toBe(true);
    } finally {
      runner.stopRunner();
    }
    await runner.idle();
    expect((await runner.get(acme, conversationId, taskId)).status).toBe("stopped");
    expect(await notes()).toEqual([]);
  });
});

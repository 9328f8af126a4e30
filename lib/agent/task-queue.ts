import "server-only";
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type AgentTask, agentTask, type MembershipRole, type TaskStatusValue } from "@/db/schema";
import { isUuid } from "@/lib/core/schema/uuid";

/** A background task as the queue keeps it. */
export type TaskRecord = Pick<
  AgentTask,
  | "id"
  | "tenantId"
  | "conversationId"
  | "userId"
  | "role"
  | "kind"
  | "input"
  | "status"
  | "result"
  | "error"
  | "attempts"
  | "createdAt"
  | "startedAt"
  | "finishedAt"
>;

export type NewTask = {
  tenantId: string;
  conversationId: string;
  userId: string;
  role: MembershipRole;
  kind: string;
  input: string;
};

export type TaskEnd = { status: "done" | "failed"; result?: string; error?: string };

/**
 * Where background tasks wait and who runs them. A runner claims a task with a lease (`owner`, until a time)
 * and renews it while the task runs; a lease left to expire (its process died) makes the task claimable again,
 * up to `maxAttempts` claims. Only the holder of a live claim can end a task, so a stopped or re-claimed task's
 * late result is dropped.
 */
export interface TaskQueue {
  enqueue(task: NewTask): Promise<TaskRecord>;
  /** Claims up to `limit` tasks: queued ones, and running ones whose lease expired, with attempts left. */
  claim(owner: string, opts: { limit: number; leaseMs: number; maxAttempts: number }): Promise<TaskRecord[]>;
  /** Extends the leases `owner` holds on these tasks; returns the ids it still holds. */
  renew(owner: string, ids: string[], leaseMs: number): Promise<string[]>;
  /** Ends a task `owner` holds; false when it no longer holds it (stopped, or taken after its lease expired). */
  finish(owner: string, id: string, end: TaskEnd): Promise<boolean>;
  /** Fails the tasks whose lease expired with no attempt left, and returns them. */
  failExhausted(maxAttempts: number, error: (attempts: number) => string): Promise<TaskRecord[]>;
  /** A task of this tenant's conversation; null for anyone else's. */
  get(tenantId: string, conversationId: string, id: string): Promise<TaskRecord | null>;
  /** Cancels a queued or running task of this tenant's conversation; false when it had already ended. */
  cancel(tenantId: string, conversationId: string, id: string): Promise<boolean>;
}

const ms = (n: number) => sql`${`${Math.max(0, Math.round(n))} milliseconds`}::interval`;

/** The queue on PostgreSQL (or PGlite): claims take `FOR UPDATE SKIP LOCKED`, so each claim goes to one runner. */
export class DrizzleTaskQueue implements TaskQueue {
  constructor(private readonly database: () => Promise<Database>) {}

  async enqueue(task: NewTask): Promise<TaskRecord> {
    const [row] = await (await this.database()).insert(agentTask).values(task).returning();
    return row!;
  }

  async claim(owner: string, opts: { limit: number; leaseMs: number; maxAttempts: number }) {
    if (opts.limit <= 0) return [];
    const db = await this.database();
    const claimable = db
      .select({ id: agentTask.id })
      .from(agentTask)
      .where(
        and(
          or(
            eq(agentTask.status, "queued"),
            and(eq(agentTask.status, "running"), lt(agentTask.leaseUntil, sql`now()`)),
          ),
          lt(agentTask.attempts, opts.maxAttempts),
        ),
      )
      .orderBy(asc(agentTask.createdAt))
      .limit(opts.limit)
      .for("update", { skipLocked: true });
    return db
      .update(agentTask)
      .set({
        status: "running",
        leaseOwner: owner,
        leaseUntil: sql`now() + ${ms(opts.leaseMs)}`,
        attempts: sql`${agentTask.attempts} + 1`,
        startedAt: sql`coalesce(${agentTask.startedAt}, now())`,
      })
      .where(inArray(agentTask.id, claimable))
      .returning();
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await (await this.database())
      .update(agentTask)
      .set({ leaseUntil: sql`now() + ${ms(leaseMs)}` })
      .where(and(inArray(agentTask.id, ids), this.held(owner)))
      .returning({ id: agentTask.id });
    return rows.map((r) => r.id);
  }

  async finish(owner: string, id: string, end: TaskEnd): Promise<boolean> {
    const rows = await (await this.database())
      .update(agentTask)
      .set({
        status: end.status,
        result: end.result ?? null,
        error: end.error ?? null,
        leaseOwner: null,
        leaseUntil: null,
        finishedAt: sql`now()`,
      })
      .where(and(eq(agentTask.id, id), this.held(owner)))
      .returning({ id: agentTask.id });
    return rows.length > 0;
  }

  async failExhausted(maxAttempts: number, error: (attempts: number) => string) {
    const db = await this.database();
    const exhausted = await db
      .select({ id: agentTask.id, attempts: agentTask.attempts })
      .from(agentTask)
      .where(
        and(
          eq(agentTask.status, "running"),
          lt(agentTask.leaseUntil, sql`now()`),
          sql`${agentTask.attempts} >= ${maxAttempts}`,
        ),
      )
      .limit(100);
    const failed: TaskRecord[] = [];
    for (const row of exhausted) {
      // Re-checked on the locked row, so two runners cannot both fail (and announce) one task.
      const [done] = await db
        .update(agentTask)
        .set({
          status: "failed",
          error: error(row.attempts),
          leaseOwner: null,
          leaseUntil: null,
          finishedAt: sql`now()`,
        })
        .where(
          and(
            eq(agentTask.id, row.id),
            eq(agentTask.status, "running"),
            lt(agentTask.leaseUntil, sql`now()`),
          ),
        )
        .returning();
      if (done) failed.push(done);
    }
    return failed;
  }

  async get(tenantId: string, conversationId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await (await this.database())
      .select()
      .from(agentTask)
      .where(this.scoped(tenantId, conversationId, id));
    return row ?? null;
  }

  async cancel(tenantId: string, conversationId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await (await this.database())
      .update(agentTask)
      .set({ status: "cancelled", leaseOwner: null, leaseUntil: null, finishedAt: sql`now()` })
      .where(and(this.scoped(tenantId, conversationId, id), inArray(agentTask.status, ["queued", "running"])))
      .returning({ id: agentTask.id });
    return rows.length > 0;
  }

  private held(owner: string) {
    return and(eq(agentTask.status, "running"), eq(agentTask.leaseOwner, owner));
  }

  private scoped(tenantId: string, conversationId: string, id: string) {
    return and(
      eq(agentTask.tenantId, tenantId),
      eq(agentTask.conversationId, conversationId),
      eq(agentTask.id, id),
    );
  }
}

type MemoryTask = TaskRecord & { leaseOwner: string | null; leaseUntil: number };

/** The same queue in memory, for unit tests (one process, so no locking to do). */
export class InMemoryTaskQueue implements TaskQueue {
  readonly tasks = new Map<string, MemoryTask>();

  async enqueue(task: NewTask): Promise<TaskRecord> {
    const row: MemoryTask = {
      ...task,
      id: randomUUID(),
      status: "queued",
      result: null,
      error: null,
      attempts: 0,
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
      leaseOwner: null,
      leaseUntil: 0,
    };
    this.tasks.set(row.id, row);
    return { ...row };
  }

  async claim(owner: string, opts: { limit: number; leaseMs: number; maxAttempts: number }) {
    const now = Date.now();
    const claimed: TaskRecord[] = [];
    for (const t of this.tasks.values()) {
      if (claimed.length >= opts.limit) break;
      const runnable = t.status === "queued" || (t.status === "running" && t.leaseUntil < now);
      if (!runnable || t.attempts >= opts.maxAttempts) continue;
      Object.assign(t, {
        status: "running" as TaskStatusValue,
        leaseOwner: owner,
        leaseUntil: now + opts.leaseMs,
        attempts: t.attempts + 1,
        startedAt: t.startedAt ?? new Date(),
      });
      claimed.push({ ...t });
    }
    return claimed;
  }

  async renew(owner: string, ids: string[], leaseMs: number) {
    return ids.filter((id) => {
      const t = this.tasks.get(id);
      if (t?.status !== "running" || t.leaseOwner !== owner) return false;
      t.leaseUntil = Date.now() + leaseMs;
      return true;
    });
  }

  async finish(owner: string, id: string, end: TaskEnd) {
    const t = this.tasks.get(id);
    if (t?.status !== "running" || t.leaseOwner !== owner) return false;
    Object.assign(t, {
      status: end.status,
      result: end.result ?? null,
      error: end.error ?? null,
      leaseOwner: null,
      finishedAt: new Date(),
    });
    return true;
  }

  async failExhausted(maxAttempts: number, error: (attempts: number) => string) {
    const now = Date.now();
    const failed: TaskRecord[] = [];
    for (const t of this.tasks.values()) {
      if (t.status !== "running" || t.leaseUntil >= now || t.attempts < maxAttempts) continue;
      Object.assign(t, {
        status: "failed",
        error: error(t.attempts),
        leaseOwner: null,
        finishedAt: new Date(),
      });
      failed.push({ ...t });
    }
    return failed;
  }

  async get(tenantId: string, conversationId: string, id: string) {
    const t = this.tasks.get(id);
    return t && t.tenantId === tenantId && t.conversationId === conversationId ? { ...t } : null;
  }

  async cancel(tenantId: string, conversationId: string, id: string) {
    const t = this.tasks.get(id);
    if (!t || t.tenantId !== tenantId || t.conversationId !== conversationId) return false;
    if (t.status !== "queued" && t.status !== "running") return false;
    Object.assign(t, { status: "cancelled", leaseOwner: null, finishedAt: new Date() });
    return true;
  }
}

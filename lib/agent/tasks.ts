import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { MembershipRole, TaskStatusValue } from "@/db/schema";
import { type ClusterBus, topic } from "@/lib/cluster";
import { LeaseLoop } from "@/lib/core/process/lease-loop";
import { log } from "@/lib/core/process/log";
import type { ConversationStore } from "@/lib/turns/conversation";
import { InMemoryTaskQueue, type TaskEnd, type TaskQueue, type TaskRecord } from "./task-queue";
import type { ToolContext } from "./tool";

export const TASK_RESULT_LIMIT = 2_000;

export type TaskKind = {
  description: string;
  run(instructions: string, ctx: TaskRunContext): Promise<string>;
  /** Started by its own tool (code_run's background runs), so task_start does not offer it. */
  ownTool?: boolean;
  /** The notice queued when the task ends by itself; default `taskResultMessage` (<TASK_RESULT>). */
  notice?(task: EndedTask): string;
};

/** A task that ended by itself, as its notice reads it. */
export type EndedTask = {
  id: string;
  kind: string;
  /** What the task was started with (the instructions, or the kind's own JSON). */
  input: string;
  status: "succeeded" | "failed";
  output: string;
  error?: string;
};

export type TaskRunContext = Pick<ToolContext, "tenantId" | "userId" | "role" | "addUsage" | "noteUse"> & {
  conversationId: string;
  signal: AbortSignal;
};

/** A task's status in the tools' words (the model reads these): the stored status, renamed. */
export type TaskStatus = "queued" | "running" | "succeeded" | "failed" | "stopped";
const TOOL_STATUS: Record<TaskStatusValue, TaskStatus> = {
  queued: "queued",
  running: "running",
  done: "succeeded",
  failed: "failed",
  cancelled: "stopped",
};

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};
/** Escapes every value that goes inside the tags, so no output can close or forge a tag. */
export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** At most TASK_RESULT_LIMIT characters of a result, with a pointer to task_output for the rest. */
export function capTaskOutput(body: string): string {
  return body.length > TASK_RESULT_LIMIT
    ? `${body.slice(0, TASK_RESULT_LIMIT)}…[${body.length - TASK_RESULT_LIMIT} more characters: call task_output for all of it]`
    : body;
}

/** The message the model sees next turn when a background task has ended by itself. */
export function taskResultMessage(task: {
  id: string;
  kind: string;
  status: TaskStatus;
  output: string;
  error?: string;
}) {
  const body = task.status === "succeeded" ? task.output : (task.error ?? "failed");
  const capped = capTaskOutput(body);
  return `<TASK_RESULT task_id="${escapeXml(task.id)}" kind="${escapeXml(task.kind)}" status="${escapeXml(task.status)}">\n${escapeXml(capped)}\n</TASK_RESULT>`;
}

/**
 * "This task was stopped": the instance running it checks its leases at once instead of at the next renewal (up
 * to a third of the lease later). The message decides nothing: the stop is the queue's, and only a lease the
 * queue no longer grants ends the work.
 */
export const TASK_STOPPED = topic("task.stopped", z.object({ taskId: z.string().min(1).max(100) }));

export type TaskManagerOptions = {
  /** Where the other instances hear of a stop (their runners drop the task at once rather than at renewal). */
  cluster?: ClusterBus;
  /** Where tasks wait; in memory when omitted (tests only: the app passes the database queue). */
  queue?: TaskQueue;
  /** This runner's identity on the leases it takes (default: a fresh id). */
  owner?: string;
  /** A claim lasts this long unless renewed (renewed every third of it while the task runs). Default 60 s. */
  leaseMs?: number;
  /** How often the runner looks for tasks queued elsewhere or left by a dead process. Default 2 s. */
  pollMs?: number;
  /** Tasks this runner runs at once. Default 4. */
  concurrency?: number;
  /** Claims a task gets before it is given up as failed (each claim after the first follows a crash). Default 3. */
  maxAttempts?: number;
};

type StartContext = {
  tenantId: string;
  userId: string;
  role: MembershipRole;
  conversationId: string;
  addUsage?: ToolContext["addUsage"];
};

/**
 * Background jobs started by the `tasks` tools. A started task is a row in the queue; a runner in every app
 * process claims tasks with a lease and runs them, so a task outlives the turn and the process that started
 * it: one left by a dead process is claimed again once its lease expires. When a task ends by itself its
 * result is queued to the conversation (a stopped one sends nothing), and a failing notification never
 * affects it.
 */
export class TaskManager {
  private readonly queue: TaskQueue;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  /** Tasks this runner is running, by id. */
  private readonly running = new Map<string, AbortController>();
  /** Polls, renews and tracks what is in flight. */
  private readonly loop: LeaseLoop;
  private readonly cluster: ClusterBus | undefined;

  constructor(
    private readonly store: ConversationStore,
    readonly kinds: Record<string, TaskKind>,
    options: TaskManagerOptions = {},
  ) {
    this.queue = options.queue ?? new InMemoryTaskQueue();
    this.owner = options.owner ?? randomUUID();
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 2_000;
    this.concurrency = options.concurrency ?? 4;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.loop = new LeaseLoop({
      name: "background task runner",
      pollMs: this.pollMs,
      leaseMs: this.leaseMs,
      claim: () => this.claimAndRun(),
      renew: () => this.renew(),
    });
    this.cluster = options.cluster;
    this.cluster?.on(TASK_STOPPED, ({ taskId }) => {
      if (this.running.has(taskId)) void this.renew();
    });
  }

  /** Queues a task and returns its id at once; this process's runner picks it up straight away. */
  async start(ctx: StartContext, kind: string, instructions: string): Promise<{ taskId: string }> {
    if (!this.kinds[kind])
      throw new Error(`unknown task kind "${kind}"; known: ${Object.keys(this.kinds).join(", ")}`);
    const task = await this.queue.enqueue({
      tenantId: ctx.tenantId,
      conversationId: ctx.conversationId,
      userId: ctx.userId,
      role: ctx.role,
      kind,
      input: instructions,
    });
    this.loop.kick();
    return { taskId: task.id };
  }

  /** A task of this tenant and conversation; others are "not found". */
  async get(tenantId: string, conversationId: string, taskId: string) {
    const task = await this.queue.get(tenantId, conversationId, taskId);
    if (!task) throw new Error(`task ${taskId} not found`);
    return {
      taskId: task.id,
      kind: task.kind,
      status: TOOL_STATUS[task.status],
      output: task.result ?? "",
      error: task.error ?? undefined,
      startedAt: (task.startedAt ?? task.createdAt).toISOString(),
      finishedAt: task.finishedAt?.toISOString() ?? null,
    };
  }

  /**
   * Stops a queued or running task, wherever it runs: that runner drops it when it next renews its leases, at
   * once when the cluster bus tells it.
   */
  async stop(tenantId: string, conversationId: string, taskId: string): Promise<{ stopped: boolean }> {
    await this.get(tenantId, conversationId, taskId);
    const stopped = await this.queue.cancel(tenantId, conversationId, taskId);
    if (stopped) {
      const here = this.running.get(taskId);
      if (here) here.abort(new Error("stopped by task_stop"));
      else void this.cluster?.emit(TASK_STOPPED, { taskId });
    }
    return { stopped };
  }

  /** Polls for tasks and renews the leases of running ones until stopRunner(); timers never keep the process alive. */
  startRunner(): void {
    this.loop.start();
  }

  /** Stops polling; tasks already running finish (or, if the process ends first, are re-claimed elsewhere). */
  stopRunner(): void {
    this.loop.stop();
  }

  /** Claims what this runner has room for and starts it; returns how many it claimed. Calls are serialised. */
  tick(): Promise<number> {
    return this.loop.tick();
  }

  /** Resolves when nothing is claimed or running here any more (tests, graceful shutdown). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async claimAndRun(): Promise<number> {
    const given = await this.queue.failExhausted(
      this.maxAttempts,
      (n) => `the task was interrupted ${n} times (the process running it stopped); it was given up`,
    );
    for (const task of given) await this.notify(task, "failed");
    const claimed = await this.queue.claim(this.owner, {
      limit: this.concurrency - this.running.size,
      leaseMs: this.leaseMs,
      maxAttempts: this.maxAttempts,
    });
    for (const task of claimed) {
      const controller = new AbortController();
      this.running.set(task.id, controller);
      void this.loop.track(this.run(task, controller));
    }
    return claimed.length;
  }

  private async run(task: TaskRecord, controller: AbortController): Promise<void> {
    const runCtx: TaskRunContext = {
      tenantId: task.tenantId,
      userId: task.userId,
      role: task.role,
      conversationId: task.conversationId,
      signal: controller.signal,
      // The turn that started the task is long over: background spend (and skills) are not added to it.
      addUsage: () => {},
      noteUse: () => {},
    };
    let end: TaskEnd;
    try {
      const spec = this.kinds[task.kind];
      if (!spec) throw new Error(`unknown task kind "${task.kind}" (no longer configured)`);
      end = { status: "done", result: await spec.run(task.input, runCtx) };
    } catch (error) {
      end = { status: "failed", error: error instanceof Error ? error.message : String(error) };
    }
    this.running.delete(task.id);
    let ended = false;
    try {
      // Only a claim still held ends the task: a stopped (or re-claimed) task's late result is dropped.
      ended = await this.queue.finish(this.owner, task.id, end);
    } catch (error) {
      // The lease then expires and the task runs again elsewhere (at most maxAttempts times).
      log.error({ err: error, taskId: task.id }, "could not record a background task's end");
    }
    if (ended)
      await this.notify({ ...task, result: end.result ?? null, error: end.error ?? null }, end.status);
    // Room for another task.
    this.loop.kick();
  }

  private async renew(): Promise<void> {
    const ids = [...this.running.keys()];
    if (!ids.length) return;
    try {
      const held = new Set(await this.queue.renew(this.owner, ids, this.leaseMs));
      // Stopped by task_stop in another process, or taken over after a stall: stop working on it.
      for (const id of ids) if (!held.has(id)) this.running.get(id)?.abort(new Error("stopped by task_stop"));
    } catch (error) {
      log.error({ err: error }, "could not renew background task leases");
    }
  }

  private async notify(task: TaskRecord, status: "done" | "failed"): Promise<void> {
    try {
      const ended: EndedTask = {
        id: task.id,
        kind: task.kind,
        input: task.input,
        status: status === "done" ? "succeeded" : "failed",
        output: task.result ?? "",
        error: task.error ?? undefined,
      };
      // Each kind words its own notice (code runs: <TERMINAL_TASK_RESULT>); the type stays task_result, so
      // results that arrive while the conversation is busy merge into one message whatever their kind.
      const notice = this.kinds[task.kind]?.notice ?? taskResultMessage;
      await this.store.queueNotification(task.tenantId, task.conversationId, {
        type: "task_result",
        body: notice(ended),
      });
    } catch (notifyError) {
      log.error(
        { err: notifyError, taskId: task.id },
        "could not queue a task result; the task itself is done",
      );
    }
  }
}

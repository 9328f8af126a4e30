import { v7 as uuidv7 } from "uuid";
import type { MembershipRole } from "@/db/schema";
import { log } from "@/lib/log";
import type { ConversationStore } from "./conversation";
import type { ToolContext } from "./tool";

export const TASK_RESULT_LIMIT = 2_000;

export type TaskKind = {
  description: string;
  run(instructions: string, ctx: TaskRunContext): Promise<string>;
};

export type TaskRunContext = Pick<ToolContext, "tenantId" | "userId" | "role" | "addUsage"> & {
  conversationId: string;
  signal: AbortSignal;
};

export type TaskStatus = "running" | "succeeded" | "failed" | "stopped";

type Task = {
  id: string;
  kind: string;
  tenantId: string;
  conversationId: string;
  status: TaskStatus;
  output: string;
  error?: string;
  startedAt: Date;
  finishedAt?: Date;
  controller: AbortController;
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

/** The message the model sees next turn when a background task has ended by itself. */
export function taskResultMessage(task: {
  id: string;
  kind: string;
  status: TaskStatus;
  output: string;
  error?: string;
}) {
  const body = task.status === "succeeded" ? task.output : (task.error ?? "failed");
  const capped =
    body.length > TASK_RESULT_LIMIT
      ? `${body.slice(0, TASK_RESULT_LIMIT)}…[${body.length - TASK_RESULT_LIMIT} more characters: call task_output for all of it]`
      : body;
  return `<TASK_RESULT task_id="${escapeXml(task.id)}" kind="${escapeXml(task.kind)}" status="${escapeXml(task.status)}">\n${escapeXml(capped)}\n</TASK_RESULT>`;
}

/**
 * Background jobs started by the `tasks` tools: they run in this process; when one ends by itself its result
 * is queued to the conversation (a stopped one sends nothing), and a failing notification never affects it.
 */
export class TaskManager {
  private readonly tasks = new Map<string, Task>();
  constructor(
    private readonly store: ConversationStore,
    readonly kinds: Record<string, TaskKind>,
  ) {}

  start(
    ctx: {
      tenantId: string;
      userId: string;
      role: MembershipRole;
      conversationId: string;
      addUsage?: ToolContext["addUsage"];
    },
    kind: string,
    instructions: string,
  ): { taskId: string } {
    const spec = this.kinds[kind];
    if (!spec) throw new Error(`unknown task kind "${kind}"; known: ${Object.keys(this.kinds).join(", ")}`);
    const task: Task = {
      id: uuidv7(),
      kind,
      tenantId: ctx.tenantId,
      conversationId: ctx.conversationId,
      status: "running",
      output: "",
      startedAt: new Date(),
      controller: new AbortController(),
    };
    this.tasks.set(task.id, task);
    const runCtx: TaskRunContext = {
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      role: ctx.role,
      conversationId: ctx.conversationId,
      signal: task.controller.signal,
      // The turn that started the task is long over: background spend is not added to it.
      addUsage: () => {},
    };
    void spec.run(instructions, runCtx).then(
      (output) => this.finish(task, "succeeded", output),
      (error: unknown) =>
        this.finish(task, "failed", "", error instanceof Error ? error.message : String(error)),
    );
    return { taskId: task.id };
  }

  /** A task of this tenant and conversation; others are "not found". */
  get(tenantId: string, conversationId: string, taskId: string) {
    const task = this.tasks.get(taskId);
    if (!task || task.tenantId !== tenantId || task.conversationId !== conversationId)
      throw new Error(`task ${taskId} not found`);
    return {
      taskId: task.id,
      kind: task.kind,
      status: task.status,
      output: task.output,
      error: task.error,
      startedAt: task.startedAt.toISOString(),
      finishedAt: task.finishedAt?.toISOString() ?? null,
    };
  }

  stop(tenantId: string, conversationId: string, taskId: string): { stopped: boolean } {
    const found = this.get(tenantId, conversationId, taskId);
    if (found.status !== "running") return { stopped: false };
    const task = this.tasks.get(taskId)!;
    task.status = "stopped";
    task.finishedAt = new Date();
    task.controller.abort(new Error("stopped by task_stop"));
    return { stopped: true };
  }

  /** Resolves when every running task has ended (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while ([...this.tasks.values()].some((t) => t.status === "running"))
      await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setImmediate(r));
  }

  private async finish(task: Task, status: "succeeded" | "failed", output: string, error?: string) {
    if (task.status !== "running") return; // stopped: no completion message
    task.status = status;
    task.output = output;
    task.error = error;
    task.finishedAt = new Date();
    try {
      await this.store.queueNotification(task.tenantId, task.conversationId, {
        type: "task_result",
        body: taskResultMessage(task),
      });
    } catch (notifyError) {
      log.error(
        { err: notifyError, taskId: task.id },
        "could not queue a task result; the task itself is done",
      );
    }
  }
}

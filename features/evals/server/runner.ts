import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type EvalInput, type EvalScore, evalRun, evalRunItem } from "@/db/schema";
import { describeRef, findVersion, messagesOf, type PromptVersionView } from "@/features/prompts/server";
import { recordEvalScores } from "@/features/scores/server";
import { AppError } from "@/lib/core/errors/app-error";
import { LeaseLoop } from "@/lib/core/process/lease-loop";
import { isDraining } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import type { ChatMessage, ToolSchema } from "@/lib/gateway/types";
import type { TurnPrompt } from "@/lib/turns/observer";
import { BUDGET_CLASSES, type EvalCallDeps, type EvalCallResult, evalCall } from "./call";
import { type Judge, scoreAll } from "./scorers";
import type { Scorer, Target } from "./types";

export type EvalRunnerOptions = {
  db: () => Promise<Database>;
  calls: EvalCallDeps;
  /**
   * The tools of the named tool sets, as the model sees them: a target whose stored prompt names `toolSets` is
   * offered them, so `tool_called` can score which tool the model chose (the tools are not run).
   */
  toolSchemas?: (toolSets: string[]) => ToolSchema[];
  /** This process (the instance id) on the leases it takes. */
  owner?: string;
  /** A claim lasts this long unless renewed (every third of it while the item runs). Default 60 s. */
  leaseMs?: number;
  /** How often the runner looks for work. Default 1 s. */
  pollMs?: number;
  /** Items this process runs at once, over every run (each run's own concurrency holds across processes). Default 8. */
  slots?: number;
  /** Claims an item gets before it is given up as failed (each claim after the first follows a crash). Default 3. */
  maxAttempts?: number;
};

type Claimed = typeof evalRunItem.$inferSelect;
type RunRow = typeof evalRun.$inferSelect;

const ms = (n: number) => sql`${`${Math.max(0, Math.round(n))} milliseconds`}::interval`;

/**
 * Works through evaluation runs, one per process (started with the app, stopped on SIGTERM). Run items are rows
 * claimed under a lease with `for update skip locked`, the run's row locked while its room is counted, so a
 * run's concurrency holds across every instance and no item runs twice at once; an item left by a dead process
 * is claimed again once its lease expires, and a finished one is never run again. Every call is a metered call
 * of source `eval`; a hard budget refusal stops the run with status `budget`.
 */
export class EvalRunner {
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly slots: number;
  private readonly maxAttempts: number;
  private readonly running = new Map<string, AbortController>();
  /** Polls, renews and tracks what is in flight. */
  private readonly loop: LeaseLoop;
  private stopped = false;

  constructor(private readonly options: EvalRunnerOptions) {
    this.owner = options.owner ?? randomUUID();
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 1_000;
    this.slots = options.slots ?? 8;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.loop = new LeaseLoop({
      name: "evaluation runner",
      pollMs: this.pollMs,
      leaseMs: this.leaseMs,
      // Stopped, or the process is stopping (SIGTERM): nothing more is claimed.
      claim: () => (this.stopped || isDraining() ? Promise.resolve(0) : this.claimAndRun()),
      renew: () => this.renew(),
    });
  }

  /** Polls for items and renews the leases of running ones until stop(); timers never keep the process alive. */
  start(): void {
    this.stopped = false;
    this.loop.start();
  }

  /** Stops claiming; items already running finish (or, if the process ends first, are claimed again elsewhere). */
  stop(): void {
    this.stopped = true;
    this.loop.stop();
  }

  /** Claims what there is room for and starts it; returns how many items it claimed. Calls are serialised. */
  tick(): Promise<number> {
    return this.loop.tick();
  }

  /** Resolves when nothing is claimed or running here any more. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Ticks until nothing is left to claim and nothing runs here (tests; no timers needed). */
  async drain(): Promise<void> {
    for (;;) {
      const claimed = await this.tick();
      await this.idle();
      if (!claimed && !this.running.size) return;
    }
  }

  private async claimAndRun(): Promise<number> {
    const db = await this.options.db();
    // The live runs first (their status index): with none, the poll is this one cheap query, and the look for
    // given-up items reads only live runs' items through the (run, status) index, never the whole table.
    const runs = await db
      .select({ id: evalRun.id })
      .from(evalRun)
      .where(and(inArray(evalRun.status, ["queued", "running"]), sql`${evalRun.cancelRequestedAt} is null`))
      .orderBy(evalRun.createdAt)
      .limit(50);
    if (!runs.length) return 0;
    await this.giveUpExhausted(
      db,
      runs.map((r) => r.id),
    );
    let room = this.slots - this.running.size;
    if (room <= 0) return 0;
    let claimedCount = 0;
    for (const { id } of runs) {
      if (room <= 0) break;
      const claimed = await this.claim(db, id, room);
      if (!claimed) continue;
      room -= claimed.items.length;
      claimedCount += claimed.items.length;
      for (const item of claimed.items) {
        const controller = new AbortController();
        this.running.set(item.id, controller);
        void this.loop.track(this.runItem(db, claimed.run, item, controller));
      }
      // A run whose items are all ended (e.g. the last ones given up) is closed here.
      if (!claimed.items.length) await this.settle(db, id);
    }
    return claimedCount;
  }

  /**
   * Claims up to `limit` items of one run, within its concurrency over every instance: the run's row is locked
   * (skipped when another instance holds it) while its live claims are counted and new ones taken.
   */
  private async claim(db: Database, runId: string, limit: number) {
    return db.transaction(async (tx) => {
      const [run] = await tx
        .select()
        .from(evalRun)
        .where(and(eq(evalRun.id, runId), inArray(evalRun.status, ["queued", "running"])))
        .for("update", { skipLocked: true });
      if (!run || run.cancelRequestedAt) return null;
      const [live] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(evalRunItem)
        .where(
          and(
            eq(evalRunItem.runId, runId),
            eq(evalRunItem.status, "running"),
            sql`${evalRunItem.leaseUntil} > now()`,
          ),
        );
      const room = Math.min(limit, run.concurrency - Number(live?.n ?? 0));
      if (room <= 0) return { run, items: [] as Claimed[] };
      const claimable = tx
        .select({ id: evalRunItem.id })
        .from(evalRunItem)
        .where(
          and(
            eq(evalRunItem.runId, runId),
            or(
              eq(evalRunItem.status, "pending"),
              and(eq(evalRunItem.status, "running"), lt(evalRunItem.leaseUntil, sql`now()`)),
            ),
            lt(evalRunItem.attempts, this.maxAttempts),
          ),
        )
        .orderBy(evalRunItem.itemUpdatedAt, evalRunItem.itemId, evalRunItem.targetIndex)
        .limit(room)
        .for("update", { skipLocked: true });
      const items = await tx
        .update(evalRunItem)
        .set({
          status: "running",
          claimedBy: this.owner,
          leaseUntil: sql`now() + ${ms(this.leaseMs)}`,
          attempts: sql`${evalRunItem.attempts} + 1`,
        })
        .where(inArray(evalRunItem.id, claimable))
        .returning();
      if (items.length && run.status === "queued")
        await tx
          .update(evalRun)
          .set({ status: "running", startedAt: sql`coalesce(${evalRun.startedAt}, now())` })
          .where(eq(evalRun.id, runId));
      return { run, items };
    });
  }

  /** Items whose lease expired with no claim left are failed (their process kept dying on them). */
  private async giveUpExhausted(db: Database, runIds: string[]): Promise<void> {
    const given = await db
      .update(evalRunItem)
      .set({
        status: "failed",
        error: `interrupted ${this.maxAttempts} times (the process running it stopped); given up`,
        claimedBy: null,
        leaseUntil: null,
        finishedAt: sql`now()`,
      })
      .where(
        and(
          inArray(evalRunItem.runId, runIds),
          eq(evalRunItem.status, "running"),
          lt(evalRunItem.leaseUntil, sql`now()`),
          sql`${evalRunItem.attempts} >= ${this.maxAttempts}`,
        ),
      )
      .returning({ runId: evalRunItem.runId });
    for (const runId of new Set(given.map((g) => g.runId))) await this.settle(db, runId);
  }

  private async runItem(db: Database, run: RunRow, item: Claimed, controller: AbortController) {
    try {
      await this.work(db, run, item, controller.signal);
    } catch (error) {
      log.error({ err: error, runId: run.id, itemId: item.id }, "evaluation item failed");
      await this.finish(db, item, {
        status: "failed",
        error: error instanceof Error ? error.message : String(error),
      }).catch(() => undefined);
    } finally {
      this.running.delete(item.id);
    }
    await this.settle(db, run.id).catch((error: unknown) =>
      log.error({ err: error, runId: run.id }, "could not settle an evaluation run"),
    );
    // Room for another item.
    if (!this.stopped) this.loop.kick();
  }

  private async work(db: Database, run: RunRow, item: Claimed, signal: AbortSignal) {
    const target = run.targets[item.targetIndex] as Target | undefined;
    if (!target) return this.finish(db, item, { status: "failed", error: "the run has no such target" });
    const who = { tenantId: run.tenantId, userId: run.createdBy, apiKeyId: run.apiKeyId };
    let messages: ChatMessage[];
    let prompt: TurnPrompt | undefined;
    let config: PromptVersionView["config"] = {};
    try {
      const built = await this.messages(db, run.tenantId, target, item.input);
      messages = built.messages;
      prompt = built.prompt;
      config = built.config;
    } catch (error) {
      if (error instanceof AppError) return this.finish(db, item, { status: "failed", error: detail(error) });
      throw error;
    }
    const call = await evalCall(
      this.options.calls,
      who,
      {
        model: target.model,
        messages,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        tools: config.toolSets?.length ? this.options.toolSchemas?.(config.toolSets) : undefined,
      },
      { prompt, signal },
    );
    if (call.error && BUDGET_CLASSES.has(call.error.class))
      return this.stopForBudget(db, run.id, item, call, call.error.message);
    if (call.error)
      return this.finish(db, item, {
        status: "failed",
        error: `${call.error.class}: ${call.error.message}`,
        ...callColumns(call),
        passed: false,
        score: 0,
      });
    const judge: Judge = async (model, judgeMessages) =>
      evalCall(this.options.calls, who, { model, messages: judgeMessages, temperature: 0 }, { signal });
    const scored = await scoreAll(
      run.scorers as Scorer[],
      {
        input: item.input,
        expected: item.expected,
        output: call.answer,
        toolCalls: call.toolCalls,
        latencyMs: call.latencyMs,
        cost: call.cost,
      },
      judge,
    );
    const result = {
      status: "done" as const,
      ...callColumns(call),
      passed: scored.passed,
      score: scored.score,
      scores: scored.scores,
      judgeCost: scored.judgeCost,
    };
    // Only the instance that still held the item writes its scores, so a taken-over item is scored once.
    const finished = await this.finish(db, item, result);
    if (finished) await this.recordScores(db, run, call.turnId, scored.scores);
    // The answer is kept; the judge could not finish scoring it, and the run stops.
    if (scored.budget) return this.stopForBudget(db, run.id, null, call, scored.budget.message);
    return finished;
  }

  /**
   * The item's scores as the tenant's scores of the target's call (source eval, `eval:<scorer>`), which the ledger
   * filters and the replay show as they do people's. A failure to write them is logged: the item's result stands.
   */
  private async recordScores(db: Database, run: RunRow, turnId: string | null, scores: EvalScore[]) {
    if (!turnId || !scores.length) return;
    try {
      const { refused } = await recordEvalScores(
        db,
        { tenantId: run.tenantId, evalRunId: run.id },
        turnId,
        scores.map((s) => ({ name: `eval:${s.type}`, value: s.score, comment: s.reason || null })),
      );
      if (refused.length)
        log.warn({ runId: run.id, turnId, refused }, "evaluation scores the tenant's score configs refused");
    } catch (error) {
      log.error({ err: error, runId: run.id, turnId }, "could not write an evaluation item's scores");
    }
  }

  /** The messages of a target: its stored prompt compiled with the item's variables, else the item's messages. */
  private async messages(db: Database, tenantId: string, target: Target, input: EvalInput) {
    if (!target.prompt) {
      if (!("messages" in input))
        throw new AppError(
          "validation_failed",
          "the item gives prompt variables but the target has no prompt",
        );
      return { messages: input.messages as ChatMessage[], prompt: undefined, config: {} };
    }
    const ref =
      target.prompt.version !== undefined
        ? { version: target.prompt.version }
        : { label: target.prompt.label };
    const version = await findVersion(db, tenantId, target.prompt.name, ref);
    if (!version) throw new AppError("not_found", `${describeRef(target.prompt.name, ref)} not found`);
    const variables = "variables" in input ? input.variables : {};
    const compiled = messagesOf(version, variables);
    return {
      messages: "messages" in input ? [...compiled, ...(input.messages as ChatMessage[])] : compiled,
      prompt: { name: version.name, version: version.version },
      config: version.config,
    };
  }

  /** A hard budget refused a call: the run stops with status `budget`; what finished is kept. */
  private async stopForBudget(
    db: Database,
    runId: string,
    item: Claimed | null,
    call: EvalCallResult,
    message: string,
  ) {
    if (item)
      await this.finish(db, item, {
        status: "skipped",
        error: `stopped by the budget: ${message}`,
        ...callColumns(call),
      });
    await db.transaction(async (tx) => {
      const [stopped] = await tx
        .update(evalRun)
        .set({ status: "budget", error: message, finishedAt: sql`now()` })
        .where(and(eq(evalRun.id, runId), inArray(evalRun.status, ["queued", "running"])))
        .returning({ id: evalRun.id });
      if (!stopped) return;
      await tx
        .update(evalRunItem)
        .set({ status: "skipped", error: "not run: the run stopped at the budget", finishedAt: sql`now()` })
        .where(and(eq(evalRunItem.runId, runId), eq(evalRunItem.status, "pending")));
    });
  }

  /** Records an item's end, if this runner still holds it; false when it does not (a late result is dropped). */
  private async finish(
    db: Database,
    item: Claimed,
    values: Partial<typeof evalRunItem.$inferInsert> & { status: "done" | "failed" | "skipped" },
  ): Promise<boolean> {
    const rows = await db
      .update(evalRunItem)
      .set({ ...values, claimedBy: null, leaseUntil: null, finishedAt: sql`now()` })
      .where(
        and(
          eq(evalRunItem.id, item.id),
          eq(evalRunItem.status, "running"),
          eq(evalRunItem.claimedBy, this.owner),
        ),
      )
      .returning({ id: evalRunItem.id });
    return rows.length > 0;
  }

  /** Closes a run once no item is pending or running: `done`, unless it was cancelled or stopped already. */
  private async settle(db: Database, runId: string): Promise<void> {
    await db
      .update(evalRun)
      .set({ status: "done", finishedAt: sql`now()` })
      .where(
        and(
          eq(evalRun.id, runId),
          inArray(evalRun.status, ["queued", "running"]),
          sql`not exists (select 1 from ${evalRunItem} where ${evalRunItem.runId} = ${runId} and ${evalRunItem.status} in ('pending', 'running'))`,
        ),
      );
  }

  private async renew(): Promise<void> {
    const ids = [...this.running.keys()];
    if (!ids.length) return;
    try {
      const db = await this.options.db();
      const held = await db
        .update(evalRunItem)
        .set({ leaseUntil: sql`now() + ${ms(this.leaseMs)}` })
        .where(
          and(
            inArray(evalRunItem.id, ids),
            eq(evalRunItem.status, "running"),
            eq(evalRunItem.claimedBy, this.owner),
          ),
        )
        .returning({ id: evalRunItem.id });
      const kept = new Set(held.map((h) => h.id));
      // Taken over after a stall: stop working on it.
      for (const id of ids) if (!kept.has(id)) this.running.get(id)?.abort(new Error("lease lost"));
    } catch (error) {
      log.error({ err: error }, "could not renew evaluation item leases");
    }
  }
}

const detail = (error: AppError) => {
  const fields = error.extra.fields;
  return fields ? `${error.message}: ${Object.values(fields).flat().join("; ")}` : error.message;
};

const callColumns = (call: EvalCallResult) => ({
  output: call.answer,
  toolCalls: call.toolCalls,
  turnId: call.turnId,
  latencyMs: call.latencyMs,
  cost: call.cost,
  costStatus: call.costStatus,
  inputTokens: call.usage.inputTokens,
  outputTokens: call.usage.outputTokens,
});

import { attemptHooks } from "./adapters/adapter";
import type { Timeouts } from "./config";
import { AttemptTimeout } from "./errors";

/**
 * The timers of one attempt: connect (until the provider starts answering), first token (streams), total.
 * Each aborts the attempt's own signal with an AttemptTimeout; the caller's Stop aborts it too.
 */
export class AttemptClock {
  private readonly controller = new AbortController();
  private connectTimer?: NodeJS.Timeout;
  private firstTokenTimer?: NodeJS.Timeout;
  private readonly totalTimer: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.controller.abort(this.callerSignal?.reason);

  constructor(
    private readonly timeouts: Timeouts,
    private readonly callerSignal: AbortSignal | undefined,
    streaming: boolean,
    /** When the attempt began (the router's clock): its outcome says nothing of what happened before. */
    readonly startedAt: number = Date.now(),
  ) {
    const abortWith = (phase: AttemptTimeout["phase"], ms: number) => () =>
      this.controller.abort(new AttemptTimeout(phase, ms));
    this.connectTimer = setTimeout(abortWith("connect", timeouts.connectMs), timeouts.connectMs);
    if (streaming)
      this.firstTokenTimer = setTimeout(
        abortWith("first_token", timeouts.firstTokenMs),
        timeouts.firstTokenMs,
      );
    this.totalTimer = setTimeout(abortWith("total", timeouts.totalMs), timeouts.totalMs);
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The provider started answering: the connect timer stops. */
  readonly headersArrived = (): void => clearTimeout(this.connectTimer);

  /** Runs adapter code so that our fetch wrapper can stop the connect timer when headers arrive. */
  run<T>(fn: () => T): T {
    return attemptHooks.run({ onResponse: this.headersArrived }, fn);
  }

  /** The first token arrived: from now on the same budget bounds each gap between chunks (a stalled stream). */
  firstToken(): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.firstTokenTimer);
    this.firstTokenTimer = setTimeout(
      () => this.controller.abort(new AttemptTimeout("idle", this.timeouts.firstTokenMs)),
      this.timeouts.firstTokenMs,
    );
  }

  /** A chunk arrived: the stream is alive. */
  tick(): void {
    this.firstTokenTimer?.refresh();
  }

  /** Ends the attempt: clears the timers and, if it is still running (a consumer went away), aborts it. */
  dispose(abortReason?: unknown): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.firstTokenTimer);
    clearTimeout(this.totalTimer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
    if (abortReason !== undefined && !this.controller.signal.aborted) this.controller.abort(abortReason);
  }
}

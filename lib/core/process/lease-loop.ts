import { claimsBackgroundWork } from "./lifecycle";
import { log } from "./log";

/**
 * The loop behind a runner of rows claimed under leases (background tasks, evaluation run items): it polls
 * `claim` and renews the leases of what runs (a third of the lease apart), serialises claims so two never overlap
 * in one process, and tracks what is in flight for `idle()`. Timers never keep the process alive. What a claim
 * is, and what renewing means, stays with the runner.
 */
export class LeaseLoop {
  private readonly inflight = new Set<Promise<unknown>>();
  private ticking: Promise<number> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      /** For the log line when a claim fails ("background task runner"). */
      name: string;
      pollMs: number;
      leaseMs: number;
      /** Claims what there is room for and starts it; resolves to how many it claimed. */
      claim: () => Promise<number>;
      renew: () => Promise<void>;
    },
  ) {}

  /** Polls and renews until stop(); a second start does nothing. */
  start(): void {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => this.kick(), this.options.pollMs);
    this.pollTimer.unref();
    const every = Math.max(10, Math.floor(this.options.leaseMs / 3));
    this.renewTimer = setInterval(() => void this.options.renew(), every);
    this.renewTimer.unref();
    this.kick();
  }

  /** Stops polling and renewing; what runs finishes (or, if the process ends first, is claimed again elsewhere). */
  stop(): void {
    clearInterval(this.pollTimer);
    clearInterval(this.renewTimer);
    this.pollTimer = undefined;
    this.renewTimer = undefined;
  }

  /** Claims now (after any claim under way); resolves to how many were claimed. */
  tick(): Promise<number> {
    // Another process (the worker) claims the work: a kick here (a task just queued) leaves it to that one.
    if (!claimsBackgroundWork()) return Promise.resolve(0);
    const previous = this.ticking ?? Promise.resolve(0);
    const run: Promise<number> = previous
      .catch(() => 0)
      .then(() => this.options.claim())
      .finally(() => {
        if (this.ticking === run) this.ticking = undefined;
      });
    this.ticking = run;
    return this.track(run);
  }

  /** A tick whose failure is logged, not thrown (timers, "room for another"). */
  kick(): void {
    void this.tick().catch((error: unknown) => log.error({ err: error }, `${this.options.name} failed`));
  }

  /** Counts a promise as in flight until it settles (a claimed item's run). */
  track<T>(promise: Promise<T>): Promise<T> {
    this.inflight.add(promise);
    void promise.finally(() => this.inflight.delete(promise)).catch(() => undefined);
    return promise;
  }

  /** Resolves when nothing is claimed or running here any more (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    await new Promise((r) => setImmediate(r));
  }
}

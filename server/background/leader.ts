import "server-only";
import type { HeldLock } from "@/db";
import { log } from "@/lib/core/process/log";
import type { MaintenanceJob } from "@/lib/governance/maintenance";

/** Long-running background work started when this process leads and stopped when it stops leading. */
export type BackgroundService = {
  name: string;
  start(): void;
  /** Stops taking new work; resolves when what runs here has finished. */
  stop(): Promise<void>;
};

export type LeaderOptions = {
  /** Takes the leader lock, or null when another process holds it. */
  acquire(): Promise<HeldLock | null>;
  jobs: MaintenanceJob[];
  services: BackgroundService[];
  /** How often a follower tries to take the lead, and the leader checks it still holds it. Default 5 s. */
  checkMs?: number;
  /** Called after each run of a job (tests count them; the log says it at debug level). */
  onRun?(job: string): void;
};

/**
 * Background work under one leader lock: whichever process holds it runs every maintenance job on its schedule and
 * every background service; the others stand by and try again every few seconds, so when the leader stops (or
 * loses its database connection, and with it the lock) another one takes over. Timers never keep the process
 * alive.
 */
export class LeaderWork {
  private lock: HeldLock | null = null;
  private checker: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private checking: Promise<void> | null = null;
  private stopped = false;
  private readonly checkMs: number;

  constructor(private readonly options: LeaderOptions) {
    this.checkMs = options.checkMs ?? 5_000;
  }

  /** Whether this process leads right now. */
  get leading(): boolean {
    return this.lock !== null;
  }

  /** Tries to lead now and every checkMs until stop(). */
  start(): Promise<void> {
    this.stopped = false;
    if (!this.checker) {
      this.checker = setInterval(() => void this.check(), this.checkMs);
      this.checker.unref();
    }
    return this.check();
  }

  /** One round: a follower tries to take the lead; the leader makes sure it still holds the lock. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.lock) {
        if (await withTimeout(this.lock.stillHeld(), this.checkMs, false)) return;
        log.warn("background work: the leader lock was lost; standing by");
        await this.stepDown();
        return;
      }
      const lock = await this.options.acquire();
      if (!lock) return;
      if (this.stopped) return void (await lock.release());
      this.lock = lock;
      this.lead();
    } catch (error) {
      log.error({ err: error }, "background work: could not check the leader lock");
    }
  }

  private lead(): void {
    log.info(
      { jobs: this.options.jobs.map((j) => j.name), services: this.options.services.map((s) => s.name) },
      "background work: this process leads",
    );
    for (const job of this.options.jobs) {
      const first = setTimeout(() => {
        this.run(job);
        const every = setInterval(() => this.run(job), job.everyMs);
        every.unref();
        this.timers.push(every);
      }, job.firstAfterMs);
      first.unref();
      this.timers.push(first);
    }
    for (const service of this.options.services) service.start();
  }

  /** Runs a job unless its previous run is still going (a slow run is never overlapped by the next one). */
  private run(job: MaintenanceJob): void {
    if (this.running.has(job.name) || !this.lock) return;
    const run = job
      .run()
      .then(
        () => {
          log.debug({ job: job.name }, "background job ran");
          this.options.onRun?.(job.name);
        },
        (error: unknown) => log.error({ err: error, job: job.name }, `${job.name} failed`),
      )
      .finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
  }

  private async stepDown(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    const lock = this.lock;
    this.lock = null;
    await Promise.allSettled(this.options.services.map((s) => s.stop()));
    await Promise.allSettled(this.running.values());
    await lock?.release();
  }

  /** Stops leading (the services finish what they run, the jobs in progress end) and lets another process lead. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.checker);
    this.checker = undefined;
    await this.checking;
    await this.stepDown();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

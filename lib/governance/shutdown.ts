import { batchers } from "@/lib/core/errors/failures";
import { reachShutdownDeadline, startDraining } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";
import { releaseAllowances } from "@/lib/pipeline/allowances";

type Signal = "SIGTERM" | "SIGINT";
const EXIT_CODES: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

export type ShutdownOptions = {
  /** From the signal to the forced exit, flushing included (ms). */
  deadlineMs?: number;
  /**
   * What runs here is given until the cut (the last quarter of the deadline, at most 2 s before it) to finish:
   * e.g. background work stops claiming and waits for its runs. Then calls still in flight are cut.
   */
  settle?: () => Promise<void>;
  /** Runs after the last flush (e.g. closing an embedded database), within the deadline. */
  after?: () => Promise<void>;
};

/** Flushes every batching recorder of the process, giving up after `ms`; true when all of it was written. */
export async function flushBatchers(ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const flushed = Promise.all(batchers().map((b) => b.flush())).then(() => true as const);
  const ok = await Promise.race([flushed, timeout]);
  clearTimeout(timer);
  if (!ok)
    log.error(
      { backlog: Object.fromEntries(batchers().map((b) => [b.name, b.stats()])) },
      "shutdown deadline reached with ledger rows still unwritten",
    );
  return ok;
}

/**
 * Flushes until no batching recorder has a call in progress or a row waiting (calls that were answered while a
 * flush ran are written by the next one), or the deadline passes.
 */
export async function drainBatchers(deadline: number): Promise<boolean> {
  for (;;) {
    const ok = await flushBatchers(deadline - Date.now());
    const busy = batchers().some((b) => {
      const lag = b.stats();
      return lag.callsInProgress > 0 || lag.rowsWaiting > 0;
    });
    if (!ok || !busy) return ok && !busy;
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}

/**
 * Once per process: on SIGTERM or SIGINT, every batching recorder (the API ledger) is flushed before the process
 * ends, within `deadlineMs`.
 *
 * `next start` has its own handler for both signals: it stops accepting connections, waits for the requests in
 * progress (whose calls end, and queue their ledger rows, meanwhile), then calls `process.exit(143|130)` at once.
 * So the flush must run at that exit, not only at the signal: from the signal on, `process.exit` first flushes
 * (the time left to the deadline) and then exits with the code it was given. When no one else handles the
 * signal, this handler flushes and exits itself; and if nothing has exited by the deadline (a request that never
 * ends), it flushes what it can and exits.
 */
export function installShutdownFlush(options: ShutdownOptions = {}): void {
  const installed = processSlot("shutdown.flush", () => ({ done: false }));
  if (installed.done) return;
  installed.done = true;
  const deadlineMs = options.deadlineMs ?? 10_000;
  const realExit = process.exit.bind(process);
  let stopping: Promise<void> | null = null;
  let settling: Promise<void> = Promise.resolve();
  let deadline = 0;
  const cutMs = deadlineMs - Math.min(2_000, deadlineMs / 4);

  const finish = (code: number): Promise<void> => {
    stopping ??= (async () => {
      await Promise.race([settling, sleep(deadline - (deadlineMs - cutMs) - Date.now())]);
      // Calls and turns still running are cut now (recorded as interrupted), so their rows can be written.
      reachShutdownDeadline();
      const ok = await drainBatchers(deadline);
      if (ok) log.info("ledger flushed; exiting");
      // Spend settled and unspent allowances given back, so other instances may use them at once.
      await releaseAllowances(deadline - Date.now());
      if (options.after) await Promise.race([options.after().catch(() => {}), sleep(deadline - Date.now())]);
      realExit(code);
    })();
    return stopping;
  };

  const onSignal = (signal: Signal) => {
    if (deadline) return;
    deadline = Date.now() + deadlineMs;
    log.info({ signal }, "stopping: the ledger is flushed before the process exits");
    startDraining();
    process.exit = ((code?: number | string | null) => {
      void finish(typeof code === "number" ? code : Number(code ?? 0) || 0);
    }) as typeof process.exit;
    // Rows of calls that already ended are written while the server drains the rest.
    void flushBatchers(deadlineMs);
    settling = options.settle?.().catch(() => {}) ?? Promise.resolve();
    // Alone on this signal (no next start around us): nobody else will exit.
    if (process.listenerCount(signal) === 1) void finish(EXIT_CODES[signal]);
    // Whatever keeps the server from exiting, the last rows get the final quarter of the deadline (up to 2 s).
    setTimeout(() => void finish(EXIT_CODES[signal]), cutMs).unref();
  };
  for (const signal of Object.keys(EXIT_CODES) as Signal[]) process.on(signal, () => onSignal(signal));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

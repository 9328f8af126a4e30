import { processSlot } from "./process-state";

/**
 * Where this process is in its life: starting (migrations, seed and start-up not done yet), serving, or draining
 * (SIGTERM/SIGINT seen: new API calls are refused with 503, so the calls in progress can finish and their ledger
 * rows be written before the process exits). The readiness probe answers from it.
 */
const state = () =>
  processSlot("lifecycle", () => ({
    started: false,
    draining: false,
    backgroundHere: true,
    deadline: new AbortController(),
    inFlight: new Set<AbortController>(),
  }));

export const isDraining = (): boolean => state().draining;

export function startDraining(): void {
  state().draining = true;
}

/** Whether start-up has finished (the database migrated and seeded, the process serving). */
export const isStarted = (): boolean => state().started;

export function markStarted(): void {
  state().started = true;
}

/**
 * Whether this process claims background work (tasks, evaluation items) itself. False where a separate worker
 * does it (`TOLLGATE_WORKER=external`): queued work then waits for the worker's poll instead of a local kick.
 */
export const claimsBackgroundWork = (): boolean => state().backgroundHere;

export function setClaimsBackgroundWork(here: boolean): void {
  state().backgroundHere = here;
}

/** The abort reason of work cut at the shutdown deadline: it is recorded as `interrupted`, not as a user's Stop. */
export class ShutdownDeadline extends Error {
  readonly code = "shutdown_deadline";
  constructor() {
    super("the process stopped before this call could finish");
  }
}

/** Whether an abort reason is the shutdown deadline (by its code: class names do not survive the bundler). */
export const isShutdownDeadline = (reason: unknown): boolean =>
  typeof reason === "object" &&
  reason !== null &&
  (reason as { code?: unknown }).code === "shutdown_deadline";

/** Aborts when the shutdown deadline passes: calls and turns still running then are cut (and recorded). */
export const shutdownDeadlineSignal = (): AbortSignal => state().deadline.signal;

/**
 * Counts a call's controller as in flight until the returned function is called; the shutdown deadline aborts
 * what is still in flight then (its reason a ShutdownDeadline).
 */
export function trackInFlight(controller: AbortController): () => void {
  const { inFlight, deadline } = state();
  if (deadline.signal.aborted) controller.abort(deadline.signal.reason);
  inFlight.add(controller);
  return () => void inFlight.delete(controller);
}

/** How many tracked calls are in flight (the probes and the shutdown log). */
export const inFlightCount = (): number => state().inFlight.size;

/** The deadline has passed: every call still in flight is cut, recorded as interrupted by its handler. */
export function reachShutdownDeadline(): void {
  const { deadline, inFlight } = state();
  if (deadline.signal.aborted) return;
  const reason = new ShutdownDeadline();
  deadline.abort(reason);
  for (const controller of inFlight) controller.abort(reason);
}

/** TOLLGATE_SHUTDOWN_TIMEOUT_MS: from SIGTERM to the forced exit (default 10 s). */
export function shutdownTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.TOLLGATE_SHUTDOWN_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 10_000;
}

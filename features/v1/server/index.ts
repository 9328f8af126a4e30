import { v7 as uuidv7 } from "uuid";
import { isDraining } from "@/lib/core/process/lifecycle";
import { BatchedGovernanceRecorder, type BatchOptions } from "@/lib/governance/batched-recorder";
import type { ApiHandler } from "@/lib/http/exchange";
import type { TurnObserver } from "@/lib/turns/observer";
import { createV1Core, dialectOf, type V1Deps, v1WebHandler } from "./handler";

/** A positive whole number from the environment, else the default. */
function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The API ledger's bounds (see BatchedGovernanceRecorder and the README's Configuration). */
export function ledgerOptionsFromEnv(): BatchOptions {
  return {
    maxRows: envInt("TOLLGATE_LEDGER_MAX_ROWS", 1_000),
    maxAgeMs: envInt("TOLLGATE_LEDGER_MAX_AGE_MS", 2_000),
    writers: envInt("TOLLGATE_LEDGER_WRITERS", 2),
    admitWaitMs: envInt("TOLLGATE_LEDGER_WAIT_MS", 1_000),
  };
}

/**
 * Holds a call back while the ledger's backlog is full (see `BatchedGovernanceRecorder.admit`), and refuses it
 * with 503 and Retry-After when the backlog stays full past the wait: nothing has been sent upstream then, and
 * the refusal is not a ledger row (it would add to the backlog it is protecting).
 */
export function withLedgerBackpressure(
  recorder: Pick<BatchedGovernanceRecorder, "admit">,
  handler: ApiHandler,
): ApiHandler {
  const refuse = (path: string, message: string, code: string) => {
    const res = dialectOf(path).error(503, message, code);
    res.headers["retry-after"] = "1";
    res.headers["x-request-id"] = uuidv7();
    return res;
  };
  return async (req) => {
    // A stopping process takes no new calls: the ones in progress finish and are written before it exits.
    if (req.method === "POST" && isDraining())
      return refuse(req.path, "This Tollgate instance is shutting down; retry.", "shutting_down");
    if (req.method === "POST" && !(await recorder.admit()))
      return refuse(req.path, "Tollgate's usage ledger is behind; retry in a moment.", "ledger_backlog_full");
    return handler(req);
  };
}

/** The /v1 API of a process: its handler, and the batching recorder that writes its ledger rows. */
export type V1Api = {
  /** Transport-neutral: the lean server serves it from node:http (server/serve.ts). */
  core: ApiHandler;
  /** The same as `(Request) => Response`: Next's /v1 route. */
  handler: (req: Request) => Promise<Response>;
  recorder: BatchedGovernanceRecorder;
  /** Writes the ledger rows of the API calls that have ended and are not written yet (on shutdown). */
  flush(): Promise<void>;
};

/**
 * The /v1 handler over the database, gateway and pipeline, its ledger written in batches with backpressure.
 * `observe` wraps the ledger's recorder (metrics, the log line, spans where each row closes); `wrap` the whole
 * handler (its HTTP server span).
 */
export function createV1Api(
  deps: Omit<V1Deps, "recorder"> & {
    observe?: (recorder: TurnObserver) => TurnObserver;
    wrap?: (handler: ApiHandler) => ApiHandler;
  },
  ledger: BatchOptions = ledgerOptionsFromEnv(),
): V1Api {
  const { observe, wrap, ...coreDeps } = deps;
  // API calls are short: their ledger rows and audit events are written in batches, off the request's path.
  const recorder = new BatchedGovernanceRecorder(deps.db, ledger);
  const observed = observe ? observe(recorder) : recorder;
  const backpressured = withLedgerBackpressure(recorder, createV1Core({ ...coreDeps, recorder: observed }));
  const core = wrap ? wrap(backpressured) : backpressured;
  return { core, handler: v1WebHandler(core), recorder, flush: () => recorder.flush() };
}

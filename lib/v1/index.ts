import { getDb } from "@/db";
import { registerBatcher } from "@/lib/core/failures";
import { getGateway } from "@/lib/gateway";
import { BatchedGovernanceRecorder, type BatchOptions } from "@/lib/governance/batched-recorder";
import { getPipeline } from "@/lib/pipeline";
import { createV1Handler } from "./handler";
import { openAIError } from "./openai-shapes";

type Holder = {
  __tollgateV1?: { handler: (req: Request) => Promise<Response>; recorder: BatchedGovernanceRecorder };
};
const holder = globalThis as Holder;

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
  recorder: BatchedGovernanceRecorder,
  handler: (req: Request) => Promise<Response>,
): (req: Request) => Promise<Response> {
  return async (req) => {
    if (req.method === "POST" && !(await recorder.admit())) {
      const res = openAIError(
        503,
        "Tollgate's usage ledger is behind; retry in a moment.",
        "ledger_backlog_full",
      );
      res.headers.set("retry-after", "1");
      return res;
    }
    return handler(req);
  };
}

function v1(): NonNullable<Holder["__tollgateV1"]> {
  if (!holder.__tollgateV1) {
    // API calls are short: their ledger rows and audit events are written in batches, off the request's path.
    const recorder = new BatchedGovernanceRecorder(getDb, ledgerOptionsFromEnv());
    // Flushed on SIGTERM/SIGINT (lib/shutdown.ts), its lag shown on /api/health.
    registerBatcher({ name: "v1", flush: () => recorder.flush(), stats: () => recorder.stats() });
    const handler = withLedgerBackpressure(
      recorder,
      createV1Handler({ db: getDb, gateway: getGateway, pipeline: getPipeline(), recorder }),
    );
    holder.__tollgateV1 = { handler, recorder };
  }
  return holder.__tollgateV1;
}

/** The process's /v1 handler over the app's database, gateway, pipeline and governance recorder. */
export function v1Handler(): (req: Request) => Promise<Response> {
  return v1().handler;
}

/** Writes the ledger rows of the API calls that have ended and are not written yet (on shutdown). */
export function flushV1Ledger(): Promise<void> {
  return holder.__tollgateV1?.recorder.flush() ?? Promise.resolve();
}

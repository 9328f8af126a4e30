import { getDb } from "@/db";
import { getGateway } from "@/lib/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { getPipeline } from "@/lib/pipeline";
import { createV1Handler } from "./handler";

type Holder = {
  __tollgateV1?: { handler: (req: Request) => Promise<Response>; recorder: BatchedGovernanceRecorder };
};
const holder = globalThis as Holder;

function v1(): NonNullable<Holder["__tollgateV1"]> {
  if (!holder.__tollgateV1) {
    // API calls are short: their ledger rows and audit events are written in batches, off the request's path.
    const recorder = new BatchedGovernanceRecorder(getDb);
    const handler = createV1Handler({ db: getDb, gateway: getGateway, pipeline: getPipeline(), recorder });
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

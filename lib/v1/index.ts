import { getDb } from "@/db";
import { getGateway } from "@/lib/gateway";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { getPipeline } from "@/lib/pipeline";
import { createV1Handler } from "./handler";

type Holder = { __tollgateV1?: (req: Request) => Promise<Response> };
const holder = globalThis as Holder;

/** The process's /v1 handler over the app's database, gateway and governance recorder. */
export function v1Handler(): (req: Request) => Promise<Response> {
  holder.__tollgateV1 ??= createV1Handler({
    db: getDb,
    gateway: getGateway,
    pipeline: getPipeline(),
    recorder: new GovernanceRecorder(getDb),
  });
  return holder.__tollgateV1;
}

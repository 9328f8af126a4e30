import "server-only";
import { peekProcessSlot, setProcessSlot } from "@/lib/core/process/process-state";
import type { ClusterBus } from "./bus";

export {
  type Ask,
  ask,
  CLUSTER_CLIENT_NAME,
  ClusterBus,
  type ClusterBusOptions,
  clusterOptionsFromEnv,
  DEFAULT_ASK_TIMEOUT_MS,
  LISTEN_BEFORE_READY_MS,
  listenBeforeReady,
  MAX_PAYLOAD_BYTES,
  type Topic,
  topic,
} from "./bus";
export { shareCooldowns } from "./cooldowns";

/**
 * The bus this process's server started (start-up, the lean gateway, the worker), for code that has no container
 * to ask: the key-revocation feed publishes on it. Anchored once per process, like the container.
 */
export function processBus(): ClusterBus | undefined {
  return peekProcessSlot<ClusterBus>("cluster.bus");
}

export function setProcessBus(bus: ClusterBus | undefined): void {
  setProcessSlot("cluster.bus", bus);
}

import "server-only";
import { z } from "zod";
import type { CooldownChange, CooldownTracker } from "@/lib/gateway/cooldown";
import { type ClusterBus, topic } from "./bus";

const at = z.number().int().nonnegative();
/** A deployment tripped into cooldown until `until`, or brought back by a probe, at `at` (both epoch ms). */
export const COOLDOWN = topic<CooldownChange>(
  "gateway.cooldown",
  z.discriminatedUnion("state", [
    z.object({ key: z.string().min(1).max(512), state: z.literal("cooled"), until: at, at }),
    z.object({ key: z.string().min(1).max(512), state: z.literal("recovered"), at }),
  ]),
);

/**
 * The tracker's trips and recoveries go to every other instance, and theirs come to it: a deployment found
 * failing by one replica is skipped by all of them until the same moment. Returns an undo.
 */
export function shareCooldowns(bus: ClusterBus, tracker: CooldownTracker): () => void {
  tracker.publishTo((change) => void bus.emit(COOLDOWN, change));
  const off = bus.on(COOLDOWN, (change) => tracker.apply(change));
  return () => {
    off();
    tracker.publishTo(undefined);
  };
}

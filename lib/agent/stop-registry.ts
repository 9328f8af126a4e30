import "server-only";
import { z } from "zod";
import { ask, type ClusterBus } from "@/lib/cluster";

type Owner = { tenantId: string; userId: string };

const ref = z.string().min(1).max(100);
/** "Stop this turn of this user's, if it runs on you": only the instance running it answers. */
export const STOP_TURN = ask(
  "turn.stop",
  z.object({ turnId: ref, tenantId: ref, userId: ref }),
  z.object({ stopped: z.literal(true) }),
);

/**
 * The drawer turns running in this process, by id, so a Stop request can reach the turn's abort signal: here,
 * or (through the cluster bus) from whichever instance the request landed on. Only the turn's own user in its
 * tenant stops it; anyone else hears what they would for a turn that does not exist.
 */
export class RunningTurns {
  private readonly running = new Map<string, { controller: AbortController } & Owner>();

  constructor(private readonly cluster?: ClusterBus) {
    cluster?.serve(STOP_TURN, (q) => (this.stopHere(q.turnId, q) ? { stopped: true } : undefined));
  }

  /** Registers a turn as it starts; the returned function forgets it (call it when the turn ends). */
  register(turnId: string, owner: Owner, controller: AbortController): () => void {
    const entry = { controller, tenantId: owner.tenantId, userId: owner.userId };
    this.running.set(turnId, entry);
    return () => {
      if (this.running.get(turnId) === entry) this.running.delete(turnId);
    };
  }

  /** Stops the user's own turn if it runs in this process. */
  stopHere(turnId: string, owner: Owner): boolean {
    const turn = this.running.get(turnId);
    if (!turn || turn.tenantId !== owner.tenantId || turn.userId !== owner.userId) return false;
    turn.controller.abort(new Error("stopped by the user"));
    return true;
  }

  /**
   * Stops the user's own running turn, here or on the instance running it (which answers within about a
   * second); false when it runs nowhere the bus reaches (finished, never theirs, or no answer in time).
   */
  async stop(turnId: string, owner: Owner): Promise<boolean> {
    if (this.stopHere(turnId, owner)) return true;
    const answer = await this.cluster?.ask(STOP_TURN, { turnId, ...owner });
    return answer?.stopped === true;
  }

  /** How many turns run here now (tests, health). */
  get size(): number {
    return this.running.size;
  }
}

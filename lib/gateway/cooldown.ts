import type { CooldownPolicy } from "./config";

type Health = {
  consecutiveFailures: number;
  /** Outcomes within the window, oldest first: [time, ok]. */
  recent: [number, boolean][];
  coolUntil: number;
  probing: boolean;
  /** When the deployment last went into cooldown or came back (here or, told, elsewhere); 0: never. */
  changedAt: number;
  /**
   * When this tracker learned of the current cooldown (its own trip, or the news of another's): a call sent
   * before then was not sent as this cooldown's probe, whenever the other instance tripped.
   */
  learnedAt: number;
};

/** A deployment went into cooldown until `until`, or a probe brought it back (times in the tracker's clock, ms). */
export type CooldownChange =
  | { key: string; state: "cooled"; until: number; at: number }
  | { key: string; state: "recovered"; at: number };

/** Told of this tracker's own changes (the cluster bus sends them to the other instances); must not throw. */
export type CooldownPublisher = (change: CooldownChange) => void;

export type CooldownOptions = {
  publish?: CooldownPublisher;
  /** The deployments there are: a change told about any other is ignored (default: any key). */
  keys?: Iterable<string>;
};

/**
 * Per-deployment health: a deployment that failed `consecutiveFailures` times in a row, or more than
 * `failureRate` of its calls in the window, is skipped for `cooldownMs`; then one probe is let through, and its
 * outcome decides whether the deployment is back or cools down again. The tracker judges from its own process's
 * calls; a publisher hears when a deployment goes into cooldown or comes back, and `apply` takes the same news
 * from another instance, so every replica skips a failing deployment until the same moment.
 */
export class CooldownTracker {
  private readonly health = new Map<string, Health>();
  private publish: CooldownPublisher | undefined;
  private readonly keys: ReadonlySet<string> | null;

  constructor(
    private readonly policy: CooldownPolicy,
    private readonly now: () => number = Date.now,
    options: CooldownOptions = {},
  ) {
    this.publish = options.publish;
    this.keys = options.keys ? new Set(options.keys) : null;
  }

  /** Who hears of this tracker's changes from now on (undefined: nobody). */
  publishTo(publisher: CooldownPublisher | undefined): void {
    this.publish = publisher;
  }

  /**
   * A change another instance saw: cool until the same moment, or back at once. News older than what this
   * tracker knows of the deployment (its own later trip, say) is dropped, as is news of a deployment it lacks.
   */
  apply(change: CooldownChange): void {
    if (this.keys && !this.keys.has(change.key)) return;
    const h = this.entry(change.key);
    if (change.at < h.changedAt) return;
    if (change.state === "cooled") {
      if (change.until <= this.now()) return;
      h.changedAt = change.at;
      h.learnedAt = this.now();
      h.coolUntil = change.until;
      h.probing = false;
      h.recent = [];
      h.consecutiveFailures = 0;
    } else {
      h.changedAt = change.at;
      h.coolUntil = 0;
      h.probing = false;
      h.consecutiveFailures = 0;
    }
  }

  /** Whether to try this deployment now. After a cooldown, only the first caller gets through, as the probe. */
  tryAcquire(key: string): { ok: true } | { ok: false; retryInMs: number } {
    const h = this.health.get(key);
    if (!h || h.coolUntil === 0) return { ok: true };
    const now = this.now();
    if (now < h.coolUntil) return { ok: false, retryInMs: h.coolUntil - now };
    if (h.probing) return { ok: false, retryInMs: this.policy.cooldownMs };
    h.probing = true;
    return { ok: true };
  }

  /**
   * A call to the deployment that succeeded. `startedAt`: when it was sent; a call sent before this tracker knew
   * of the cooldown (its own trip, or the news of another instance's, which may arrive after calls this instance
   * sent since that trip) brings it back no more than it could have stopped the trip: only a call sent after it
   * (the probe) ends a cooldown.
   */
  recordSuccess(key: string, startedAt: number = this.now()): void {
    const h = this.entry(key);
    if (h.coolUntil !== 0 && startedAt < Math.max(h.changedAt, h.learnedAt)) {
      this.push(h, true);
      return;
    }
    const wasCooling = h.coolUntil !== 0;
    h.consecutiveFailures = 0;
    h.coolUntil = 0;
    h.probing = false;
    this.push(h, true);
    // Only the change is news (a probe's success), never an ordinary success.
    if (wasCooling) {
      h.changedAt = this.now();
      this.publish?.({ key, state: "recovered", at: h.changedAt });
    }
  }

  recordFailure(key: string): void {
    const h = this.entry(key);
    const now = this.now();
    h.consecutiveFailures += 1;
    this.push(h, false);
    const failures = h.recent.filter(([, ok]) => !ok).length;
    const rateTripped =
      h.recent.length >= this.policy.minCallsForRate && failures / h.recent.length > this.policy.failureRate;
    if (h.probing || h.consecutiveFailures >= this.policy.consecutiveFailures || rateTripped) {
      h.coolUntil = now + this.policy.cooldownMs;
      h.probing = false;
      // A fresh window after the cooldown, so old failures do not trip it again at once.
      h.recent = [];
      h.consecutiveFailures = 0;
      h.changedAt = now;
      h.learnedAt = now;
      this.publish?.({ key, state: "cooled", until: h.coolUntil, at: now });
    }
  }

  /** A probe that ended without a verdict (the caller stopped) frees the probe slot. */
  release(key: string): void {
    const h = this.health.get(key);
    if (h?.probing) h.probing = false;
  }

  isCoolingDown(key: string): boolean {
    const h = this.health.get(key);
    return !!h && h.coolUntil > this.now();
  }

  /**
   * What the routing page shows of a deployment: cooling down until when, or half open (its cooldown is over and
   * the next call, or the one under way, is the probe).
   */
  state(key: string): { coolUntil: number; halfOpen: boolean } {
    const h = this.health.get(key);
    if (!h) return { coolUntil: 0, halfOpen: false };
    const cooling = h.coolUntil > this.now();
    return { coolUntil: cooling ? h.coolUntil : 0, halfOpen: !cooling && (h.coolUntil !== 0 || h.probing) };
  }

  /** Until when the deployment is skipped (epoch ms of the tracker's clock); 0 when it is not. */
  coolingUntil(key: string): number {
    const h = this.health.get(key);
    return h && h.coolUntil > this.now() ? h.coolUntil : 0;
  }

  private entry(key: string): Health {
    let h = this.health.get(key);
    if (!h) {
      h = { consecutiveFailures: 0, recent: [], coolUntil: 0, probing: false, changedAt: 0, learnedAt: 0 };
      this.health.set(key, h);
    }
    return h;
  }

  private push(h: Health, ok: boolean): void {
    const now = this.now();
    h.recent.push([now, ok]);
    const since = now - this.policy.windowMs;
    while (h.recent.length && h.recent[0]![0] < since) h.recent.shift();
  }
}

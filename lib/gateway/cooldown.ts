import type { CooldownPolicy } from "./config";

type Health = {
  consecutiveFailures: number;
  /** Outcomes within the window, oldest first: [time, ok]. */
  recent: [number, boolean][];
  coolUntil: number;
  probing: boolean;
};

/**
 * Per-deployment health, in this process: a deployment that failed `consecutiveFailures` times in a row, or
 * more than `failureRate` of its calls in the window, is skipped for `cooldownMs`; then one probe is let
 * through, and its outcome decides whether the deployment is back or cools down again.
 */
export class CooldownTracker {
  private readonly health = new Map<string, Health>();
  constructor(
    private readonly policy: CooldownPolicy,
    private readonly now: () => number = Date.now,
  ) {}

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

  recordSuccess(key: string): void {
    const h = this.entry(key);
    h.consecutiveFailures = 0;
    h.coolUntil = 0;
    h.probing = false;
    this.push(h, true);
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

  private entry(key: string): Health {
    let h = this.health.get(key);
    if (!h) {
      h = { consecutiveFailures: 0, recent: [], coolUntil: 0, probing: false };
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

import "server-only";
import type { Database } from "@/db";
import type { AlertChannelKind } from "@/db/schema";
import { log } from "@/lib/core/process/log";
import { isTestAlert } from "./messages";
import { maxAttemptsOf, type SendOutcome, sendToChannel, type Transports } from "./senders";
import { type ClaimedDelivery, markDead, markDelivered, scheduleRetry } from "./store";

/** What became of one try: delivered, to be tried again, or dead (dead-lettered). */
export type DeliveryOutcome = "delivered" | "retry" | "dead";

export type RetryPolicy = {
  /** The first retry's delay; each next one doubles. Default 30 s. */
  baseMs: number;
  /** The longest delay. Default 1 h. */
  maxMs: number;
  /** A number in [0, 1) for the jitter (tests make it fixed). */
  random?: () => number;
};

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 30_000, maxMs: 3_600_000 };

/** The delay before try `attempts + 1`: base × 2^(attempts-1), capped, then ±20 % so retries do not bunch up. */
export function retryDelayMs(attempts: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  const exact = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exact * (0.8 + 0.4 * (policy.random ?? Math.random)()));
}

/** What trying a delivery needs besides the database. */
export type DeliverOptions = {
  transports: Transports;
  retry?: Partial<RetryPolicy>;
  /** Each try's outcome, for the metrics (tollgate_alert_deliveries_total). */
  onOutcome?(kind: AlertChannelKind, outcome: DeliveryOutcome): void;
};

/** Tries one claimed delivery and records what became of it. */
export async function deliverClaimed(
  db: Database,
  delivery: ClaimedDelivery,
  options: DeliverOptions,
): Promise<{ outcome: DeliveryOutcome; send: SendOutcome }> {
  const { channel } = delivery;
  const maxAttempts = maxAttemptsOf(channel);
  let send: SendOutcome;
  if (!channel.enabled)
    send = { ok: false, status: null, error: "the channel was disabled", permanent: true };
  else if (delivery.attempts > maxAttempts)
    // Claimed again after its last try's lease lapsed (its sender stopped mid-send): no tries are left.
    send = {
      ok: false,
      status: null,
      error: `its sender stopped during try ${maxAttempts} of ${maxAttempts}`,
      permanent: true,
    };
  else
    send = await sendToChannel(
      channel,
      { deliveryId: delivery.id, event: delivery.event },
      options.transports,
    ).catch(
      (error: unknown): SendOutcome => ({
        ok: false,
        status: null,
        error: error instanceof Error ? error.message : String(error),
        permanent: false,
      }),
    );
  let outcome: DeliveryOutcome;
  if (send.ok) {
    outcome = "delivered";
    await markDelivered(db, delivery.id, send.status);
  } else if (send.permanent || delivery.attempts >= maxAttempts || isTestAlert(delivery.event)) {
    // A "send test" is tried once: its answer is the button's.
    outcome = "dead";
    const error =
      send.permanent || isTestAlert(delivery.event)
        ? send.error
        : `${send.error} (dead after ${delivery.attempts} tries)`;
    await markDead(db, delivery.id, { status: send.status, error });
  } else {
    outcome = "retry";
    await scheduleRetry(db, delivery.id, {
      status: send.status,
      error: send.error,
      delayMs: retryDelayMs(delivery.attempts, { ...DEFAULT_RETRY, ...options.retry }),
    });
  }
  options.onOutcome?.(channel.kind, outcome);
  if (outcome !== "delivered")
    log.warn(
      {
        deliveryId: delivery.id,
        channelId: channel.id,
        attempts: delivery.attempts,
        outcome,
        error: send.ok ? undefined : send.error,
      },
      "an alert delivery failed",
    );
  return { outcome, send };
}

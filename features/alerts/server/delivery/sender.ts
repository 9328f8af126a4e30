import "server-only";
import type { Database } from "@/db";
import type { AlertChannel } from "@/db/schema";
import { LeaseLoop } from "@/lib/core/process/lease-loop";
import { log } from "@/lib/core/process/log";
import { type DeliverOptions, deliverClaimed } from "./deliver";
import { claimDeliveries, renewLeases } from "./store";
import { sendTestAlert, type TestAlertResult } from "./test-alert";

export type AlertSenderOptions = DeliverOptions & {
  db: () => Promise<Database>;
  /** How often due deliveries are looked for (a `wake()` looks at once). Default 5 s. */
  pollMs?: number;
  /** How long a claimed delivery is this sender's; renewed while it is sent. Default 60 s. */
  leaseMs?: number;
  /** Deliveries sent at once. Default 4. */
  slots?: number;
};

/**
 * Sends fired alerts: the worker leader's background service (server/background). Claims due deliveries under a
 * lease (SKIP LOCKED, so two senders never take the same row), sends a few at once, then marks each delivered,
 * schedules its retry with exponential backoff, or dead-letters it after its channel's tries (at once for a
 * client error or a disabled channel). A sender that dies mid-send leaves its lease to lapse and the delivery is
 * claimed again: at least once, and receivers dedupe on `x-tollgate-delivery`.
 */
export class AlertSender {
  private readonly loop: LeaseLoop;
  private readonly sending = new Set<string>();
  private readonly leaseMs: number;
  private readonly slots: number;
  /** idle: built, not started (ticks still send: tests, one-off runs); stopped: claims nothing more. */
  private state: "idle" | "running" | "stopped" = "idle";

  constructor(private readonly options: AlertSenderOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.slots = options.slots ?? 4;
    this.loop = new LeaseLoop({
      name: "alert sender",
      pollMs: options.pollMs ?? 5_000,
      leaseMs: this.leaseMs,
      claim: () => this.claim(),
      renew: () => this.renew(),
    });
  }

  start(): void {
    this.state = "running";
    this.loop.start();
  }

  /** Claims nothing more; resolves when the sends in flight have ended (or the process ends and leases lapse). */
  async stop(): Promise<void> {
    this.state = "stopped";
    this.loop.stop();
    await this.loop.idle();
  }

  /** Looks for due deliveries now (the rule engine calls it after firing); nothing while stopped. */
  wake(): void {
    if (this.state === "running") this.loop.kick();
  }

  /** Claims what is due now and sends it; resolves to how many were claimed (tests). */
  tick(): Promise<number> {
    return this.loop.tick();
  }

  /** A "send test" to one channel, tried now with this sender's transports (the Alerts page's button). */
  async sendTest(channel: Pick<AlertChannel, "id" | "tenantId" | "name">): Promise<TestAlertResult> {
    return sendTestAlert(await this.options.db(), channel, this.options);
  }

  /** Resolves when nothing is being claimed or sent here. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async claim(): Promise<number> {
    if (this.state === "stopped") return 0;
    const room = this.slots - this.sending.size;
    if (room <= 0) return 0;
    const db = await this.options.db();
    const claimed = await claimDeliveries(db, { limit: room, leaseMs: this.leaseMs });
    for (const delivery of claimed) {
      this.sending.add(delivery.id);
      const run = deliverClaimed(db, delivery, this.options)
        .catch((error: unknown) =>
          // Not recorded: the lease lapses and the delivery is claimed again.
          log.error({ err: error, deliveryId: delivery.id }, "could not record an alert delivery's outcome"),
        )
        .finally(() => {
          this.sending.delete(delivery.id);
          // A full batch may have left more due: claim again as soon as there is room.
          if (claimed.length === room) this.wake();
        });
      void this.loop.track(run);
    }
    return claimed.length;
  }

  private async renew(): Promise<void> {
    if (!this.sending.size) return;
    try {
      await renewLeases(await this.options.db(), [...this.sending], this.leaseMs);
    } catch (error) {
      log.error({ err: error }, "could not renew alert deliveries' leases");
    }
  }
}

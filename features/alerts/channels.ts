import { z } from "zod";

/**
 * What each kind of alert channel holds (alert_channel.config), checked on the way in. Secrets (a webhook's
 * signing secret, a Slack webhook URL) are never answered to a browser: the views say whether one is set.
 */
export const webhookChannelConfig = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** The HMAC-SHA256 key the receiver verifies `x-tollgate-signature` with; at least 16 characters. */
  secret: z.string().min(16).max(256),
  /** Tries before a delivery is dead-lettered (the first included). */
  maxAttempts: z.int().min(1).max(20).default(6),
});
export const slackChannelConfig = z.strictObject({
  /** A Slack incoming-webhook URL (https://hooks.slack.com/services/…, or any https URL speaking its format). */
  url: z.url({ protocol: /^https?$/ }).max(2048),
  maxAttempts: z.int().min(1).max(20).default(6),
});
export const emailChannelConfig = z.strictObject({
  to: z.array(z.email()).min(1).max(20),
  maxAttempts: z.int().min(1).max(20).default(6),
});

export const alertChannelInput = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("webhook"),
    name: z.string().trim().min(1).max(80),
    enabled: z.boolean().default(true),
    config: webhookChannelConfig,
  }),
  z.strictObject({
    kind: z.literal("slack"),
    name: z.string().trim().min(1).max(80),
    enabled: z.boolean().default(true),
    config: slackChannelConfig,
  }),
  z.strictObject({
    kind: z.literal("email"),
    name: z.string().trim().min(1).max(80),
    enabled: z.boolean().default(true),
    config: emailChannelConfig,
  }),
]);
export type AlertChannelInput = z.infer<typeof alertChannelInput>;

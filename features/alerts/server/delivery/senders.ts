import "server-only";
import { createHmac } from "node:crypto";
import type { BlockList } from "node:net";
import nodemailer from "nodemailer";
import type { z } from "zod";
import type { AlertChannelKind } from "@/db/schema";
import type { Resolver } from "@/lib/agent/toolsets/web/net-guard";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { emailChannelConfig, slackChannelConfig, webhookChannelConfig } from "../../channels";
import { emailMessage, type FiredAlert, slackBody, webhookBody } from "./messages";
import { guardedPost } from "./post";

export const SIGNATURE_HEADER = "x-tollgate-signature";
export const DELIVERY_HEADER = "x-tollgate-delivery";
export const EVENT_HEADER = "x-tollgate-event";
export const DEFAULT_ALERT_FROM = "Tollgate <alerts@localhost>";
export const NO_SMTP_ERROR = "no SMTP server configured: set TOLLGATE_SMTP_URL";

/** What the senders reach the outside with (the worker's environment, or a test's). */
export type Transports = {
  /** WEB_FETCH_ALLOW: ranges webhooks and Slack URLs may reach although private or loopback. */
  allow: BlockList;
  resolver?: Resolver;
  /** One POST's time limit (default 10 s). */
  timeoutMs?: number;
  /** TOLLGATE_SMTP_URL (smtp://user:pass@host:587, smtps://…); unset: email cannot be sent. */
  smtpUrl?: string;
  /** TOLLGATE_ALERT_FROM. */
  from: string;
  /** The clock of the signature's timestamp (milliseconds). */
  now?: () => number;
};

export function transportsFromEnv(env: Record<string, string | undefined> = process.env): Transports {
  return {
    allow: parseAllowList(env.WEB_FETCH_ALLOW),
    smtpUrl: env.TOLLGATE_SMTP_URL?.trim() || undefined,
    from: env.TOLLGATE_ALERT_FROM?.trim() || DEFAULT_ALERT_FROM,
  };
}

/**
 * One try's outcome. `permanent`: trying again cannot help (a 4xx other than 408 and 429), so the delivery is
 * dead at once. `status`: the HTTP status, or the SMTP reply code.
 */
export type SendOutcome =
  | { ok: true; status: number | null }
  | { ok: false; status: number | null; error: string; permanent: boolean };

/** The one delivery being tried (its id is the receiver's dedupe key). */
export type SendInput = { deliveryId: string; event: FiredAlert };

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, Stripe's scheme, keyed by the channel's secret. */
export function signAlertBody(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}

export async function sendWebhook(
  input: SendInput,
  config: z.infer<typeof webhookChannelConfig>,
  transports: Transports,
): Promise<SendOutcome> {
  const body = webhookBody(input.event);
  const t = Math.floor((transports.now ?? Date.now)() / 1000);
  return post(
    "the webhook",
    config.url,
    body,
    {
      [SIGNATURE_HEADER]: signAlertBody(config.secret, body, t),
      [DELIVERY_HEADER]: input.deliveryId,
      [EVENT_HEADER]: input.event.id,
    },
    transports,
  );
}

export async function sendSlack(
  input: SendInput,
  config: z.infer<typeof slackChannelConfig>,
  transports: Transports,
): Promise<SendOutcome> {
  // Slack answers 200 "ok", or an error code in the body (400 invalid_payload, 404 channel_not_found…).
  return post("Slack", config.url, slackBody(input.event), {}, transports);
}

export async function sendEmail(
  input: SendInput,
  config: z.infer<typeof emailChannelConfig>,
  transports: Transports,
): Promise<SendOutcome> {
  if (!transports.smtpUrl) return { ok: false, status: null, error: NO_SMTP_ERROR, permanent: false };
  const timeout = transports.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport(transports.smtpUrl, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  const message = emailMessage(input.event);
  try {
    await transport.sendMail({
      from: transports.from,
      to: config.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { [DELIVERY_HEADER]: input.deliveryId, [EVENT_HEADER]: input.event.id },
    });
    return { ok: true, status: null };
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    return {
      ok: false,
      status: typeof code === "number" ? code : null,
      error: `the SMTP server refused or could not be reached: ${messageOf(error)}`,
      permanent: false,
    };
  } finally {
    transport.close();
  }
}

/** One POST, its answer classified: 2xx delivered; 4xx (not 408/429) permanent; the rest tried again. */
async function post(
  who: string,
  url: string,
  body: string,
  headers: Record<string, string>,
  transports: Transports,
): Promise<SendOutcome> {
  let answer: { status: number; text: string };
  try {
    answer = await guardedPost(url, body, headers, transports);
  } catch (error) {
    return {
      ok: false,
      status: null,
      error: `${who} could not be reached: ${messageOf(error)}`,
      permanent: false,
    };
  }
  const { status, text } = answer;
  if (status >= 200 && status <= 299) return { ok: true, status };
  const said = text.trim() ? `: ${oneLine(text)}` : "";
  if (status >= 400 && status <= 499 && status !== 408 && status !== 429)
    return {
      ok: false,
      status,
      error: `${who} answered HTTP ${status}${said} (a client error: not tried again)`,
      permanent: true,
    };
  return { ok: false, status, error: `${who} answered HTTP ${status}${said}`, permanent: false };
}

/**
 * Sends to a channel of any kind: its stored config is checked first (a config that no longer parses is a
 * permanent failure, named), then the kind's sender tries once.
 */
export async function sendToChannel(
  channel: { kind: AlertChannelKind; config: unknown },
  input: SendInput,
  transports: Transports,
): Promise<SendOutcome> {
  const parsed = CONFIGS[channel.kind].safeParse(channel.config);
  if (!parsed.success)
    return {
      ok: false,
      status: null,
      error: `the channel's ${channel.kind} settings are not valid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
      permanent: true,
    };
  switch (channel.kind) {
    case "webhook":
      return sendWebhook(input, parsed.data as z.infer<typeof webhookChannelConfig>, transports);
    case "slack":
      return sendSlack(input, parsed.data as z.infer<typeof slackChannelConfig>, transports);
    case "email":
      return sendEmail(input, parsed.data as z.infer<typeof emailChannelConfig>, transports);
  }
}

/** A channel's tries before its deliveries are dead (the config's, else the default 6). */
export function maxAttemptsOf(channel: { kind: AlertChannelKind; config: unknown }): number {
  const parsed = CONFIGS[channel.kind].safeParse(channel.config);
  return parsed.success ? parsed.data.maxAttempts : 1;
}

const CONFIGS = {
  webhook: webhookChannelConfig,
  slack: slackChannelConfig,
  email: emailChannelConfig,
} as const;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

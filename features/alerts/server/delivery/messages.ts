import "server-only";
import type { AlertEvent, AlertRule } from "@/db/schema";

/** What a sender is given: the event that fired and, unless it is a "send test", its rule. */
export type FiredAlert = Pick<
  AlertEvent,
  "id" | "tenantId" | "ruleId" | "dedupeKey" | "severity" | "title" | "body" | "details" | "firedAt"
> & { rule: Pick<AlertRule, "id" | "name" | "kind"> | null };

/** The dedupe key prefix of a "send test" event (`test:<uuid>`, no rule). */
export const TEST_DEDUPE_PREFIX = "test:";

export const isTestAlert = (event: Pick<FiredAlert, "ruleId" | "dedupeKey">): boolean =>
  event.ruleId === null && event.dedupeKey.startsWith(TEST_DEDUPE_PREFIX);

/** The dedupe key prefix of a clock schedule's answer sent to a channel (`schedule:<run id>`, no rule). */
export const SCHEDULE_DEDUPE_PREFIX = "schedule:";

export const isScheduleResult = (event: Pick<FiredAlert, "ruleId" | "dedupeKey">): boolean =>
  event.ruleId === null && event.dedupeKey.startsWith(SCHEDULE_DEDUPE_PREFIX);

/**
 * The JSON a webhook receives (its raw text is what `x-tollgate-signature` signs). `type` tells a receiver what
 * it is: "alert" (a rule fired, or a test), or "schedule_result" (a clock schedule's answer; `details` names the
 * schedule, its run, conversation and turn).
 */
export function webhookBody(event: FiredAlert): string {
  return JSON.stringify({
    id: event.id,
    type: isScheduleResult(event) ? "schedule_result" : "alert",
    tenantId: event.tenantId,
    rule: event.rule ? { id: event.rule.id, name: event.rule.name, kind: event.rule.kind } : null,
    severity: event.severity,
    title: event.title,
    body: event.body,
    details: event.details,
    firedAt: event.firedAt.toISOString(),
    test: isTestAlert(event),
  });
}

const SEVERITY_EMOJI: Record<FiredAlert["severity"], string> = {
  info: ":information_source:",
  warning: ":warning:",
  critical: ":rotating_light:",
};

// Slack's limits: a header's plain text up to 150 characters, a section's text up to 3000.
const HEADER_MAX = 150;
const SECTION_MAX = 3000;

/**
 * An incoming-webhook message: `text` is the notification's fallback, `blocks` what the channel shows (a header,
 * then the body and its details in mrkdwn). https://api.slack.com/messaging/webhooks
 */
export function slackBody(event: FiredAlert): string {
  const emoji = SEVERITY_EMOJI[event.severity];
  const label = event.severity.toUpperCase();
  const lines = [escapeMrkdwn(event.body)];
  const facts = [
    event.rule
      ? `*Rule:* ${escapeMrkdwn(event.rule.name)}`
      : isScheduleResult(event)
        ? "*Scheduled message* (a clock schedule's answer)"
        : "*Test alert* (no rule)",
    `*Severity:* ${event.severity}`,
    `*Fired:* ${event.firedAt.toISOString()}`,
  ];
  lines.push("", facts.join("  ·  "));
  return JSON.stringify({
    text: `${emoji} [${label}] ${event.title}`,
    blocks: [
      {
        type: "header",
        text: { type: "plain_text", text: clip(`${emoji} ${event.title}`, HEADER_MAX), emoji: true },
      },
      { type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), SECTION_MAX) } },
    ],
  });
}

/** An email's subject, plain text and small HTML body. */
export function emailMessage(event: FiredAlert): { subject: string; text: string; html: string } {
  const subject = `[Tollgate] ${event.severity}: ${event.title}`;
  const facts: [string, string][] = [
    ["Severity", event.severity],
    [
      "Rule",
      event.rule
        ? `${event.rule.name} (${event.rule.kind})`
        : isScheduleResult(event)
          ? "none: a clock schedule's answer"
          : "none: a test alert",
    ],
    ["Fired", event.firedAt.toISOString()],
    ["Event", event.id],
  ];
  const details = Object.keys(event.details).length ? JSON.stringify(event.details, null, 2) : "";
  const text = [
    event.title,
    "",
    event.body,
    "",
    ...facts.map(([k, v]) => `${k}: ${v}`),
    ...(details ? ["", "Details:", details] : []),
  ].join("\n");
  const html = [
    `<h2 style="margin:0 0 8px">${escapeHtml(event.title)}</h2>`,
    `<p style="white-space:pre-wrap">${escapeHtml(event.body)}</p>`,
    `<table cellpadding="4">${facts
      .map(([k, v]) => `<tr><th align="left">${k}</th><td>${escapeHtml(v)}</td></tr>`)
      .join("")}</table>`,
    details ? `<pre>${escapeHtml(details)}</pre>` : "",
  ].join("\n");
  return { subject, text, html };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

// Slack's mrkdwn needs only these three escaped; the rest is the author's formatting.
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeHtml(text: string): string {
  return escapeMrkdwn(text).replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/**
 * The webhook check: the text goes to the tenant's HTTPS endpoint as JSON, signed with the rule's secret, and the
 * endpoint answers allow, block or redact (with spans). Anything else — an HTTP error, a timeout, a body that is not
 * the answer's shape, an answer larger than 64 KB — is an error of the check, and the rule's onError decides.
 *
 * Signature (Stripe-like): `x-tollgate-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the key
 * being the rule's secret; a receiver recomputes it over the raw body and refuses an old `t`.
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import type { AsyncCheckInput, CheckFinding } from "./engine";
import type { GuardrailCheck, GuardrailHit } from "./types";

export const WEBHOOK_SIGNATURE_HEADER = "x-tollgate-signature";
export const WEBHOOK_MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends one POST and reads the answer's body as text, reading no more than `maxBytes` (production passes the
 * outbound address guard's client, so a tenant's URL cannot reach the gateway's own network).
 */
export type WebhookPost = (
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  maxBytes: number,
) => Promise<{ status: number; text: string }>;

type WebhookCheck = Extract<GuardrailCheck, { type: "webhook" }>;

const WebhookAnswer = z.object({
  action: z.enum(["allow", "block", "redact"]),
  reason: z.string().optional(),
  spans: z
    .array(
      z.object({
        start: z.number().int().min(0),
        end: z.number().int().min(0),
        entity: z
          .string()
          .regex(/^[A-Za-z0-9_]{1,64}$/)
          .optional(),
      }),
    )
    .optional(),
});

export function signWebhookBody(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}

export type WebhookCheckOptions = {
  post: WebhookPost;
  /** Milliseconds since the epoch, for the signature's timestamp. */
  now: () => number;
  /** Plain http:// endpoints; for local development and tests only. */
  allowHttp?: boolean;
};

export function createWebhookCheck(options: WebhookCheckOptions) {
  return async (check: WebhookCheck, input: AsyncCheckInput): Promise<CheckFinding> => {
    const url = new URL(check.url);
    if (url.protocol !== "https:" && !(options.allowHttp && url.protocol === "http:"))
      throw new Error(`the webhook's URL must be https (got ${url.protocol})`);
    const body = JSON.stringify({
      stage: input.stage,
      origin: input.origin,
      text: input.text,
      rule: { id: input.rule.id, name: input.rule.name },
    });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (check.secret)
      headers[WEBHOOK_SIGNATURE_HEADER] = signWebhookBody(
        check.secret,
        body,
        Math.floor(options.now() / 1000),
      );
    const response = await options.post(
      url.toString(),
      body,
      headers,
      input.signal,
      WEBHOOK_MAX_ANSWER_BYTES,
    );
    if (response.status < 200 || response.status > 299)
      throw new Error(`the webhook answered HTTP ${response.status}`);
    if (Buffer.byteLength(response.text) > WEBHOOK_MAX_ANSWER_BYTES)
      throw new Error("the webhook's answer is larger than 64 KB");
    return findingOf(parseAnswer(response.text), input.text.length);
  };
}

function parseAnswer(text: string): z.infer<typeof WebhookAnswer> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("the webhook's answer is not JSON");
  }
  const parsed = WebhookAnswer.safeParse(json);
  if (!parsed.success) throw new Error("the webhook's answer is not {action: allow|block|redact, spans?}");
  return parsed.data;
}

function findingOf(answer: z.infer<typeof WebhookAnswer>, length: number): CheckFinding {
  if (answer.action === "allow") return { hits: [] };
  for (const span of answer.spans ?? [])
    if (span.end <= span.start || span.end > length)
      throw new Error(`the webhook's span ${span.start}..${span.end} is outside the text`);
  const hits: GuardrailHit[] = (answer.spans ?? []).map((span) => ({
    check: "webhook",
    entity: span.entity ?? "webhook",
    start: span.start,
    end: span.end,
    confidence: 1,
  }));
  if (answer.action === "redact") {
    if (hits.length === 0) throw new Error("the webhook answered redact without spans");
    return { hits, action: "redact" };
  }
  const whole = {
    check: "webhook" as const,
    entity: "webhook_blocked",
    start: 0,
    end: length,
    confidence: 1,
  };
  return { hits: hits.length ? hits : [whole], action: "block" };
}

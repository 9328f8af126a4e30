/**
 * The `secrets` check: the masking rules of lib/core/text/mask.ts (private keys, cloud and vendor API keys, JWTs,
 * bearer and basic credentials, passwords in URLs and key=value pairs, Tollgate's own tg_ keys), as spans. One rule
 * list serves both, so what the audit trail masks and what a guardrail finds cannot drift apart.
 */
import { findSecrets } from "@/lib/core/text/mask";
import type { TextCheck } from "@/lib/guardrails/types";

// Card numbers are the pii check's (payment_card, with its IIN and Luhn rules); reporting them here would count twice.
const REPORTED_BY_PII = new Set(["card"]);

export const secretsCheck: TextCheck = (text) =>
  findSecrets(text)
    .filter((secret) => !REPORTED_BY_PII.has(secret.kind))
    .map((secret) => ({
      check: "secrets",
      entity: secret.kind,
      start: secret.start,
      end: secret.end,
      confidence: 1,
    }));

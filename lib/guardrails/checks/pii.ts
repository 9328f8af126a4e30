/**
 * The `pii` check: emails, phone numbers, payment cards, IBANs, US SSNs, IP addresses and national ids. Three
 * hand-written linear scans (addresses around "@" and ":", numbers made of digit groups, codes mixing letters and
 * digits) find candidates; checksums and group shapes decide. Confidence is 1 for a verified check digit and lower for
 * a shape alone.
 */
import { type GuardrailHit, PII_ENTITIES, type PiiEntity, type TextCheck } from "@/lib/guardrails/types";
import { findAddresses } from "./pii-addresses";
import { findPersonalCodes } from "./pii-codes";
import { findPersonalNumbers } from "./pii-numbers";

type Found = { entity: PiiEntity; start: number; end: number; confidence: number };

/** Hits sorted by start; where two overlap, the longer one stays ("name.4111…@mail.com" is one email). */
function withoutOverlaps(found: Found[]): Found[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Found[] = [];
  for (const hit of found) {
    const last = kept[kept.length - 1];
    if (last && hit.start < last.end) {
      if (hit.end - hit.start > last.end - last.start) kept[kept.length - 1] = hit;
      continue;
    }
    kept.push(hit);
  }
  return kept;
}

/** The personal data in `text`, every entity, without overlaps. */
export function findPii(text: string): Found[] {
  return withoutOverlaps([...findAddresses(text), ...findPersonalNumbers(text), ...findPersonalCodes(text)]);
}

/** The `pii` check, reporting only `entities` (all when absent). */
export function piiCheck(entities: readonly PiiEntity[] = PII_ENTITIES): TextCheck {
  const wanted = new Set(entities);
  return (text) =>
    findPii(text)
      .filter((hit) => wanted.has(hit.entity))
      .map((hit): GuardrailHit => ({ check: "pii", ...hit }));
}

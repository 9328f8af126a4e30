import { cleanText } from "@/lib/core/text/clean-text";
import { maskSecrets, maskText } from "@/lib/core/text/mask";
import type { ApiAttribution, TurnStart } from "@/lib/turns/observer";

/** OpenAI's own bounds on `user` and `metadata`; a longer value is cut, never refused. */
export const ATTRIBUTION_LIMITS = {
  endUser: 256,
  tags: 20,
  tag: 64,
  metadataKeys: 16,
  metadataKey: 64,
  metadataValue: 512,
} as const;

/**
 * Masking cost grows with the text, so a value is first cut to a few times its bound: enough that a secret
 * starting inside the bound is still whole when masked (a private key block is masked to its end anyway).
 */
const PRE_CLIP = 4;

/** The ledger row's attribution columns. */
export type AttributionColumns = {
  endUser: string | null;
  tags: string[];
  requestMetadata: Record<string, string> | null;
};

const NONE: AttributionColumns = { endUser: null, tags: [], requestMetadata: null };

/**
 * What an API call says about who asked, ready for the ledger: each value masked like the audit trail (so a
 * key pasted as a user id is not stored), cleaned of NUL and lone surrogates, and cut to OpenAI's bounds.
 * Tags are trimmed, and empty and repeated ones dropped, so a tag filter finds what the list shows.
 */
export function attributionColumns(turn: TurnStart): AttributionColumns {
  if (turn.source !== "api" || !turn.attribution) return NONE;
  return boundAttribution(turn.attribution);
}

export function boundAttribution(attribution: ApiAttribution): AttributionColumns {
  const endUser = attribution.endUser == null ? "" : safe(attribution.endUser, ATTRIBUTION_LIMITS.endUser);
  const tags: string[] = [];
  for (const raw of attribution.tags) {
    if (tags.length >= ATTRIBUTION_LIMITS.tags) break;
    const tag = safe(raw.trim(), ATTRIBUTION_LIMITS.tag).trim();
    if (tag && !tags.includes(tag)) tags.push(tag);
  }
  return { endUser: endUser || null, tags, requestMetadata: boundMetadata(attribution.metadata) };
}

function boundMetadata(metadata: Record<string, string> | null): Record<string, string> | null {
  if (!metadata) return null;
  const entries = Object.entries(metadata).slice(0, ATTRIBUTION_LIMITS.metadataKeys);
  if (!entries.length) return null;
  const clipped = Object.fromEntries(
    entries.map(([key, value]) => [
      clip(key, ATTRIBUTION_LIMITS.metadataKey * PRE_CLIP),
      clip(String(value), ATTRIBUTION_LIMITS.metadataValue * PRE_CLIP),
    ]),
  );
  // maskSecrets also hides the whole value under a key that names a credential ("api_key", "session"…).
  const masked = maskSecrets(clipped);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(masked)) {
    const k = cleanText(clip(key, ATTRIBUTION_LIMITS.metadataKey));
    // Not a plain assignment: "__proto__" must stay a key, not replace the prototype.
    Object.defineProperty(out, k, {
      value: cleanText(clip(String(value), ATTRIBUTION_LIMITS.metadataValue)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Masked, bounded and cleaned. */
const safe = (text: string, max: number) => cleanText(clip(maskText(clip(text, max * PRE_CLIP)), max));

/** The first `max` UTF-16 units, without splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

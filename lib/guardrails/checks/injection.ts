/**
 * The `injection` check: prompt-injection and jailbreak heuristics. Signals (override phrases in several languages,
 * requests for the system prompt, persona jailbreaks, chat-template tags, runs of invisible characters, and on the
 * indirect path text that addresses the model) each weigh; they combine as independent evidence
 * (1 − Π(1 − weight)), and the text hits when the score reaches its origin's threshold. Every signal's span is a
 * hit whose confidence is the score. Linear: one pass for words, bounded look-ahead per word, indexOf for literals.
 */
import type { GuardrailHit, TextCheck, TextOrigin } from "@/lib/guardrails/types";
import { ADDRESS_WORDS, CHINESE_OVERRIDE, PHRASES, type PhraseSignal, ROLE_TAGS } from "./injection-signals";
import { hashOf, type Words, wordsOf } from "./words";

type Signal = { entity: "injection" | "jailbreak"; weight: number; start: number; end: number };

// What the user types is mostly benign ("ignore the typo"): one strong signal is needed. Text from outside the
// conversation has no reason to address the model at all: a weaker signal is enough.
const INDIRECT: ReadonlySet<TextOrigin> = new Set([
  "tool_result",
  "attachment",
  "context",
  "mcp_description",
]);
const USER_THRESHOLD = 0.7;
const INDIRECT_THRESHOLD = 0.4;
const OTHER_THRESHOLD = 0.6;

const thresholdFor = (origin: TextOrigin) =>
  INDIRECT.has(origin) ? INDIRECT_THRESHOLD : origin === "user" ? USER_THRESHOLD : OTHER_THRESHOLD;

function phraseAt(words: Words, index: number, phrase: PhraseSignal): Signal | null {
  let end = words.ends[index]!;
  for (const wanted of phrase.followedBy) {
    let met = false;
    for (let j = index + 1; j <= index + phrase.reach && j < words.count; j++) {
      if (wanted.has(words, j)) {
        met = true;
        end = Math.max(end, words.ends[j]!);
        break;
      }
    }
    if (!met) return null;
  }
  return { entity: phrase.entity, weight: phrase.weight, start: words.starts[index]!, end };
}

// "Assistant, …", "AI: …", "Hey model", "note to the AI": the word is spoken to, not spoken of.
function isAddressed(words: Words, index: number): boolean {
  let after = words.ends[index]!;
  while (words.text[after] === " ") after++;
  if (words.text[after] === "," || words.text[after] === ":") return true;
  const before = index > 0 && ADDRESS_WORDS.has(words, index - 1);
  const twoBefore =
    index > 1 &&
    words.text.slice(words.starts[index - 1], words.ends[index - 1]) === "the" &&
    ADDRESS_WORDS.has(words, index - 2);
  return before || twoBefore;
}

// Each word looks up only the phrases it can start (by its hash), not every phrase.
const PHRASES_BY_TRIGGER = new Map<number, PhraseSignal[]>();
for (const phrase of PHRASES) {
  for (const word of phrase.trigger) {
    const hash = hashOf(word);
    PHRASES_BY_TRIGGER.set(hash, [...(PHRASES_BY_TRIGGER.get(hash) ?? []), phrase]);
  }
}

function phraseSignals(text: string, indirect: boolean, signals: Signal[]): void {
  const words = wordsOf(text);
  const seen = new Set<string>();
  for (let i = 0; i < words.count; i++) {
    const phrases = PHRASES_BY_TRIGGER.get(words.hashes[i]!);
    if (!phrases) continue;
    for (const phrase of phrases) {
      if ((phrase.indirectOnly && !indirect) || !phrase.trigger.has(words, i)) continue;
      if (phrase.addressed && !isAddressed(words, i)) continue;
      const signal = phraseAt(words, i, phrase);
      if (!signal) continue;
      // A phrase repeated ten times is one signal, not ten pieces of independent evidence.
      signals.push(seen.has(phrase.name) ? { ...signal, weight: 0 } : signal);
      seen.add(phrase.name);
    }
  }
}

/** Every occurrence of `needle` in `haystack` (both lower case), as spans. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}

/**
 * Lower case with every code unit kept at its offset, so spans stay exact. "İ" is the one character whose lower case
 * is longer (an "i" and a combining dot): it becomes a plain "i" first.
 */
function lowerCaseKeepingOffsets(text: string): string {
  const lower = text.replaceAll("\u0130", "i").toLowerCase();
  return lower.length === text.length ? lower : text;
}

function literalSignals(text: string, signals: Signal[]): void {
  const lower = lowerCaseKeepingOffsets(text);
  for (const tag of ROLE_TAGS) {
    const at = lower.indexOf(tag);
    if (at >= 0) signals.push({ entity: "injection", weight: 0.8, start: at, end: at + tag.length });
  }
  for (const verb of CHINESE_OVERRIDE.verbs) {
    for (const at of occurrences(text, verb)) {
      const window = text.slice(at, at + verb.length + CHINESE_OVERRIDE.reach);
      for (const noun of CHINESE_OVERRIDE.nouns) {
        const nounAt = window.indexOf(noun);
        if (nounAt < 0) continue;
        signals.push({ entity: "injection", weight: 0.85, start: at, end: at + nounAt + noun.length });
        break;
      }
    }
  }
}

// Zero-width spaces and joiners, word joiner, BOM, and the Unicode tag block (invisible "ASCII smuggling").
const isInvisible = (code: number) =>
  (code >= 0x200b && code <= 0x200f) || code === 0x2060 || code === 0xfeff || code === 0xdb40;
const INVISIBLE_RUN = 3;

function invisibleSignals(text: string, signals: Signal[]): void {
  let runStart = -1;
  let count = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    // The tag block's characters are surrogate pairs starting U+DB40: the low half belongs to the run too.
    const inRun =
      isInvisible(code) ||
      (count > 0 && text.charCodeAt(i - 1) === 0xdb40 && code >= 0xdc00 && code <= 0xdfff);
    if (inRun) {
      if (runStart < 0) runStart = i;
      if (isInvisible(code)) count++;
      continue;
    }
    if (count >= INVISIBLE_RUN) signals.push({ entity: "injection", weight: 0.5, start: runStart, end: i });
    runStart = -1;
    count = 0;
  }
}

/** The signals in `text` and their combined score (0..1). */
export function scoreInjection(text: string, origin: TextOrigin): { score: number; signals: Signal[] } {
  const signals: Signal[] = [];
  phraseSignals(text, INDIRECT.has(origin), signals);
  literalSignals(text, signals);
  invisibleSignals(text, signals);
  const score = 1 - signals.reduce((remaining, signal) => remaining * (1 - signal.weight), 1);
  return { score, signals };
}

export const injectionCheck: TextCheck = (text, origin) => {
  const { score, signals } = scoreInjection(text, origin);
  if (score < thresholdFor(origin)) return [];
  const confidence = Math.round(score * 1000) / 1000;
  return signals
    .sort((a, b) => a.start - b.start)
    .map(
      (signal): GuardrailHit => ({
        check: "injection",
        entity: signal.entity,
        start: signal.start,
        end: signal.end,
        confidence,
      }),
    );
};

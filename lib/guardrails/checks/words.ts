/**
 * Text cut into words (letters, digits and marks of any script) without building a string per word: each word is a
 * span and a hash of its lower-case form, so looking a word up in a set (a deny list's terms, the injection check's
 * phrases) costs one Map read, and only a hash that matches is compared as text. Han, kana and Hangul have no spaces
 * between words, so each of their characters is a word of its own: a phrase in Chinese is a sequence of them.
 */
import { isAsciiAlphanumeric, isWordCode } from "./characters";

export type Words = { text: string; count: number; starts: Int32Array; ends: Int32Array; hashes: Int32Array };

const isIdeograph = (code: number) =>
  (code >= 0x3040 && code <= 0x30ff) ||
  (code >= 0x3400 && code <= 0x9fff) ||
  (code >= 0xac00 && code <= 0xd7af);

// Lower case by code: ASCII by arithmetic, anything else through toLowerCase when it keeps one code unit.
function lowerCode(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  // "İ" lower-cases to "i" and a combining dot: the plain "i" lets "İGNORE" read as "ignore".
  if (code === 0x130) return 105;
  const lowered = String.fromCharCode(code).toLowerCase();
  return lowered.length === 1 ? lowered.charCodeAt(0) : code;
}

// FNV-1a over the lower-case code units.
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const step = (hash: number, code: number) => Math.imul(hash ^ lowerCode(code), FNV_PRIME);

/** The hash a word of `text` from `start` to `end` gets (the same for any casing of it). */
export function hashOf(text: string, start = 0, end = text.length): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = step(hash, text.charCodeAt(i));
  return hash;
}

/** The lower-case text of word `index`. */
export const wordAt = (words: Words, index: number) =>
  words.text.slice(words.starts[index], words.ends[index]).toLowerCase();

// Codes that continue an ASCII word: letters and digits (not "_", which joins identifiers, not words).
const ASCII_WORD = new Uint8Array(128);
for (let code = 0; code < 128; code++) ASCII_WORD[code] = isAsciiAlphanumeric(code) ? 1 : 0;

// Whether `code` continues a word; ASCII by table, the rest by Unicode class (ideographs are words of their own).
const continuesWord = (code: number) =>
  code < 128 ? ASCII_WORD[code] === 1 : !(code >= 0x3040 && isIdeograph(code)) && isWordCode(code);

function cutIntoWords(text: string): Words {
  // Room for a word every five characters, doubled when prose is denser.
  let capacity = (text.length >> 2) + 16;
  let starts: Int32Array = new Int32Array(capacity);
  let ends: Int32Array = new Int32Array(capacity);
  let hashes: Int32Array = new Int32Array(capacity);
  let count = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    const ideograph = code >= 0x3040 && isIdeograph(code);
    if (!ideograph && !continuesWord(code)) {
      i++;
      continue;
    }
    if (count === capacity) {
      capacity *= 2;
      starts = grow(starts, capacity);
      ends = grow(ends, capacity);
      hashes = grow(hashes, capacity);
    }
    const start = i;
    let hash = FNV_OFFSET;
    if (ideograph) {
      hash = step(hash, code);
      i++;
    } else {
      // The ASCII case inline: upper case letters lower-cased by setting bit 0x20.
      while (i < length && continuesWord(code)) {
        hash = Math.imul(
          hash ^ (code < 128 ? (code >= 65 && code <= 90 ? code | 32 : code) : lowerCode(code)),
          FNV_PRIME,
        );
        code = text.charCodeAt(++i);
      }
    }
    starts[count] = start;
    ends[count] = i;
    hashes[count] = hash;
    count++;
  }
  return { text, count, starts, ends, hashes };
}

function grow(array: Int32Array, capacity: number): Int32Array {
  const bigger = new Int32Array(capacity);
  bigger.set(array);
  return bigger;
}

// The injection and deny-list checks run on the same text one after the other: the last text's words are kept.
let lastWords: Words | undefined;

/** The words of `text`, in order. */
export function wordsOf(text: string): Words {
  if (lastWords?.text !== text) lastWords = cutIntoWords(text);
  return lastWords;
}

/** A set of words, looked up by a word's hash and confirmed by its text (two words may share a hash). */
export class WordSet {
  private readonly byHash = new Map<number, string[]>();
  constructor(words: Iterable<string>) {
    for (const word of words) {
      const hash = hashOf(word);
      this.byHash.set(hash, [...(this.byHash.get(hash) ?? []), word.toLowerCase()]);
    }
  }
  has(words: Words, index: number): boolean {
    const candidates = this.byHash.get(words.hashes[index]!);
    return candidates?.includes(wordAt(words, index)) ?? false;
  }
  *[Symbol.iterator]() {
    for (const candidates of this.byHash.values()) yield* candidates;
  }
}

/** Character tests for the hand-written scanners: char codes and a table, so a scan is one pass with no regex. */

const DIGIT = 1;
const UPPER = 2;
const LOWER = 4;
const UNDERSCORE = 8;
// What each ASCII character is: one array read instead of several comparisons on the hot path of every scan.
const ASCII = new Uint8Array(128);
for (let code = 48; code <= 57; code++) ASCII[code] = DIGIT;
for (let code = 65; code <= 90; code++) ASCII[code] = UPPER;
for (let code = 97; code <= 122; code++) ASCII[code] = LOWER;
ASCII[95] = UNDERSCORE;

const is = (code: number, kinds: number) => code < 128 && (ASCII[code]! & kinds) !== 0;

export const isDigit = (code: number) => is(code, DIGIT);
export const isUpper = (code: number) => is(code, UPPER);
export const isAsciiLetter = (code: number) => is(code, UPPER | LOWER);
export const isAsciiAlphanumeric = (code: number) => is(code, DIGIT | UPPER | LOWER);

// One character at a time: the test cannot backtrack, whatever the text.
const UNICODE_WORD = /[\p{L}\p{N}\p{M}]/u;

/** A letter, digit or combining mark in any script, or "_" (what a word is made of). */
export function isWordCode(code: number): boolean {
  if (code < 128) return ASCII[code] !== 0;
  // A surrogate half belongs to an astral character (an emoji, a rare ideograph): not part of a word.
  if (code >= 0xd800 && code <= 0xdfff) return false;
  return UNICODE_WORD.test(String.fromCharCode(code));
}

/** Whether the character at `index` continues a word (false outside the text). */
export const isWordAt = (text: string, index: number) =>
  index >= 0 && index < text.length && isWordCode(text.charCodeAt(index));

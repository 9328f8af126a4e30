/** Character tests for the hand-written scanners: char codes, so a scan is one pass with no regex per character. */

export const isDigit = (code: number) => code >= 48 && code <= 57;
export const isUpper = (code: number) => code >= 65 && code <= 90;
export const isLower = (code: number) => code >= 97 && code <= 122;
export const isAsciiLetter = (code: number) => isUpper(code) || isLower(code);
export const isAsciiAlphanumeric = (code: number) => isDigit(code) || isAsciiLetter(code);

// One character at a time: the test cannot backtrack, whatever the text.
const UNICODE_WORD = /[\p{L}\p{N}\p{M}]/u;

/** A letter, digit or combining mark in any script, or "_" (what a word is made of). */
export function isWordCode(code: number): boolean {
  if (code < 128) return isAsciiAlphanumeric(code) || code === 95;
  // A surrogate half belongs to an astral character (an emoji, a rare ideograph): not part of a word.
  if (code >= 0xd800 && code <= 0xdfff) return false;
  return UNICODE_WORD.test(String.fromCharCode(code));
}

/** Whether the character at `index` continues a word (false outside the text). */
export const isWordAt = (text: string, index: number) =>
  index >= 0 && index < text.length && isWordCode(text.charCodeAt(index));

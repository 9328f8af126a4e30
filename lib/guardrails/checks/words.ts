/**
 * Text cut into lower-case words (letters, digits and marks of any script), with their UTF-16 spans. Han, kana and
 * Hangul have no spaces between words, so each of their characters is a word of its own: a phrase in Chinese is then
 * a sequence of one-character words, matched like any other.
 */
import { isWordCode } from "./characters";

export type Word = { text: string; start: number; end: number };

const isIdeograph = (code: number) =>
  (code >= 0x3040 && code <= 0x30ff) ||
  (code >= 0x3400 && code <= 0x9fff) ||
  (code >= 0xac00 && code <= 0xd7af);

export function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isIdeograph(code)) {
      words.push({ text: text[i]!, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (!isWordCode(code) || code === 95) {
      i++;
      continue;
    }
    const start = i;
    while (
      i < text.length &&
      isWordCode(text.charCodeAt(i)) &&
      text.charCodeAt(i) !== 95 &&
      !isIdeograph(text.charCodeAt(i))
    )
      i++;
    words.push({ text: lowerCase(text.slice(start, i)), start, end: i });
  }
  return words;
}

// toLowerCase can lengthen a word ("İ" becomes two code units); matching needs only comparable words, not spans.
const lowerCase = (word: string) => word.toLowerCase();

/**
 * Personal numbers that mix letters and digits: IBANs (mod 97), Spanish DNI and NIE (check letter), Italian codici
 * fiscali (check letter) and UK National Insurance numbers (prefix rules; they carry no check digit). One pass visits
 * each word that starts with a letter or digit; a candidate reads at most 34 characters ahead, so the scan is linear.
 */
import type { PiiEntity } from "@/lib/guardrails/types";
import { isAsciiAlphanumeric, isAsciiLetter, isDigit, isUpper, isWordAt } from "./characters";
import { passesCodiceFiscale, passesIbanMod97, passesSpanishId } from "./checksums";

export type CodeHit = { entity: PiiEntity; start: number; end: number; confidence: number };

// IBAN length by country (ISO 13616 registry): a wrong length is refused before the checksum.
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  TN: 24,
  TR: 26,
  UA: 29,
  VG: 24,
  XK: 20,
};

/**
 * Reads up to `count` letters and digits from `start`, allowing one space (or dash) between them as people group
 * IBANs and NI numbers; returns them upper-cased and where they end, or null when the text stops short.
 */
function readCompact(text: string, start: number, count: number): { code: string; end: number } | null {
  let code = "";
  let i = start;
  while (code.length < count && i < text.length) {
    const char = text.charCodeAt(i);
    if (isAsciiAlphanumeric(char)) {
      code += text[i];
      i++;
    } else if (
      (char === 32 || char === 45) &&
      code.length > 0 &&
      isAsciiAlphanumeric(text.charCodeAt(i + 1))
    ) {
      i++;
    } else break;
  }
  if (code.length < count || isWordAt(text, i)) return null;
  return { code: code.toUpperCase(), end: i };
}

function iban(text: string, start: number): CodeHit | null {
  const country = text.slice(start, start + 2).toUpperCase();
  const length = IBAN_LENGTHS[country];
  if (!length || !isDigit(text.charCodeAt(start + 2)) || !isDigit(text.charCodeAt(start + 3))) return null;
  const read = readCompact(text, start, length);
  if (!read || !passesIbanMod97(read.code)) return null;
  return { entity: "iban", start, end: read.end, confidence: 1 };
}

// UK NINO: prefix letters exclude D F I Q U V (and O second); some pairs were never issued; suffix A to D.
const NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ";
const NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ";
const NINO_NOT_ISSUED = ["BG", "GB", "KN", "NK", "NT", "TN", "ZZ"];

function nino(text: string, start: number): CodeHit | null {
  if (!isUpper(text.charCodeAt(start)) || !isUpper(text.charCodeAt(start + 1))) return null;
  const read = readCompact(text, start, 9);
  if (!read) return null;
  const code = read.code;
  if (
    !NINO_FIRST.includes(code[0]!) ||
    !NINO_SECOND.includes(code[1]!) ||
    NINO_NOT_ISSUED.includes(code.slice(0, 2))
  )
    return null;
  for (let i = 2; i < 8; i++) if (!isDigit(code.charCodeAt(i))) return null;
  if (!"ABCD".includes(code[8]!)) return null;
  return { entity: "national_id", start, end: read.end, confidence: 0.8 };
}

// A word of exactly `length` letters and digits starting at `start` (no separators).
function wordOfLength(text: string, start: number, length: number): string | null {
  for (let i = start; i < start + length; i++) if (!isAsciiAlphanumeric(text.charCodeAt(i))) return null;
  return isWordAt(text, start + length) ? null : text.slice(start, start + length).toUpperCase();
}

const shapeIs = (code: string, shape: string) =>
  [...shape].every((kind, i) => (kind === "9" ? isDigit(code.charCodeAt(i)) : isUpper(code.charCodeAt(i))));

function spanishId(text: string, start: number): CodeHit | null {
  const word = wordOfLength(text, start, 9);
  if (!word) return null;
  const dni = shapeIs(word, "99999999A");
  const nie = "XYZ".includes(word[0]!) && shapeIs(word, "A9999999A");
  if ((!dni && !nie) || !passesSpanishId(word)) return null;
  return { entity: "national_id", start, end: start + 9, confidence: 1 };
}

function codiceFiscale(text: string, start: number): CodeHit | null {
  const word = wordOfLength(text, start, 16);
  if (!word || !shapeIs(word, "AAAAAA99A99A999A") || !passesCodiceFiscale(word)) return null;
  return { entity: "national_id", start, end: start + 16, confidence: 1 };
}

const isLetterAt = (text: string, index: number) => isAsciiLetter(text.charCodeAt(index));
const isDigitAt = (text: string, index: number) => isDigit(text.charCodeAt(index));

/** The one candidate a word start can be, read from its first characters without building a string (most words: none). */
function codeAt(text: string, i: number): CodeHit | null {
  if (isDigitAt(text, i))
    return isLetterAt(text, i + 8) && isDigitAt(text, i + 7) ? spanishId(text, i) : null;
  if (!isLetterAt(text, i)) return null;
  if (isLetterAt(text, i + 1)) {
    if (isDigitAt(text, i + 2)) return iban(text, i) ?? nino(text, i);
    if (text[i + 2] === " " && isDigitAt(text, i + 3)) return nino(text, i);
    return isLetterAt(text, i + 5) && isDigitAt(text, i + 6) ? codiceFiscale(text, i) : null;
  }
  return isDigitAt(text, i + 1) && isLetterAt(text, i + 8) ? spanishId(text, i) : null;
}

/** Every IBAN, DNI/NIE, codice fiscale and National Insurance number in `text`. */
export function findPersonalCodes(text: string): CodeHit[] {
  const hits: CodeHit[] = [];
  let i = 0;
  while (i < text.length) {
    const wordStart = isAsciiAlphanumeric(text.charCodeAt(i)) && !isWordAt(text, i - 1);
    const hit = wordStart ? codeAt(text, i) : null;
    if (hit) {
      hits.push(hit);
      i = hit.end;
    } else i++;
  }
  return hits;
}

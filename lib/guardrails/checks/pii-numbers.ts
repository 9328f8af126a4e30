/**
 * Personal numbers written as digits with separators: payment cards, US SSNs, IPv4 addresses, phone numbers,
 * Indian Aadhaar and Brazilian CPF numbers. One pass cuts the text into chains of digit groups joined by short
 * separators ("4111 1111", "(415) 555-0132", "10.0.0.1"); each chain is then tried as windows of whole groups, so a
 * card after a date in the same chain is still found. Every candidate is judged by its group shape and, where the
 * number has one, its check digit: a digit run alone is never enough.
 */
import type { PiiEntity } from "@/lib/guardrails/types";
import { isDigit, isWordAt } from "./characters";
import { passesCpf, passesLuhn, passesVerhoeff } from "./checksums";

export type NumberHit = { entity: PiiEntity; start: number; end: number; confidence: number };

type Chain = {
  /** Start and end offsets of each digit group. */
  starts: number[];
  ends: number[];
  /** The separator text between group i and group i+1. */
  joints: string[];
  /** The chain begins with "+" (an international phone number) or "(" (an area code). */
  lead: "+" | "(" | "";
};

const SEPARATORS = " -./()\u00a0";
const MAX_JOINT = 3;
const MAX_DIGITS = 19;

// Words right before a number that say it is an identifier of something else, not a person's number.
const IDENTIFIER_LABEL =
  /^(?:order|invoice|inv|tracking|track|ref|reference|ticket|isbn|issn|serial|sku|part|po|case|version|ver|v|build|release|bestellnummer|rechnungsnummer|rechnung|auftrag|sendungsnummer|commande|facture|pedido|factura|model|item|product|article|artikel|fig|figure|page|chapter|step|room|flight|batch|lot|account|acct|customer|kundennummer|transaction|txn|receipt|confirmation|booking|reservation)$/;
// "no." and "number" say nothing alone: the word before them decides ("order no." is an identifier, "phone no." not).
const NUMBER_WORD = /^(?:no|nr|number|num|nummer|numéro|numero|número|n)$/;

/** The word ending before `index` (lower case, at most 20 letters), skipping a few spaces and punctuation. */
function wordBefore(text: string, index: number): { word: string; start: number; hash: boolean } {
  let i = index - 1;
  let hash = false;
  const floor = Math.max(0, index - 6);
  while (i >= floor && !isWordAt(text, i)) {
    if (text[i] === "#") hash = true;
    i--;
  }
  const end = i + 1;
  while (i >= 0 && end - i <= 20 && isWordAt(text, i)) i--;
  return { word: text.slice(i + 1, end).toLowerCase(), start: i + 1, hash };
}

/** Whether the number at `index` is labelled as an order, invoice, tracking, version… number, or by "#". */
function hasIdentifierLabel(text: string, index: number): boolean {
  const before = wordBefore(text, index);
  if (before.hash) return true;
  if (NUMBER_WORD.test(before.word)) return IDENTIFIER_LABEL.test(wordBefore(text, before.start).word);
  return IDENTIFIER_LABEL.test(before.word);
}

/** The 40 characters before `index`, lower case: where a label like "SSN" or "CPF" would stand. */
const contextBefore = (text: string, index: number) =>
  text.slice(Math.max(0, index - 40), index).toLowerCase();

function knownCardPrefix(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  const three = Number(digits.slice(0, 3));
  if (digits[0] === "4") return true; // Visa
  if (two >= 51 && two <= 55) return true; // Mastercard
  if (four >= 2221 && four <= 2720) return true; // Mastercard 2-series
  if (two === 34 || two === 37) return digits.length === 15; // American Express
  if (two === 36 || two === 38 || (three >= 300 && three <= 305)) return true; // Diners Club
  if (four === 6011 || two === 65 || (three >= 644 && three <= 649)) return true; // Discover
  if (four >= 3528 && four <= 3589) return true; // JCB
  if (two === 62) return true; // UnionPay
  return two === 50 || (two >= 56 && two <= 69); // Maestro
}

type Window = { digits: string; lengths: number[]; joints: string[]; lead: Chain["lead"]; start: number };

const jointsAre = (joints: string[], allowed: string[]) => joints.every((joint) => allowed.includes(joint));
const sameLengths = (lengths: number[], expected: number[]) =>
  lengths.length === expected.length && lengths.every((length, i) => length === expected[i]);

function asCard(w: Window): number | null {
  if (w.lead || w.digits.length < 13 || w.digits.length > 19) return null;
  if (!jointsAre(w.joints, [" ", "-"]) || !"23456".includes(w.digits[0]!)) return null;
  if (!passesLuhn(w.digits)) return null;
  return knownCardPrefix(w.digits) ? 1 : 0.7;
}

function asSsn(w: Window, context: string): number | null {
  if (w.lead || w.digits.length !== 9) return null;
  const formatted =
    sameLengths(w.lengths, [3, 2, 4]) && (jointsAre(w.joints, ["-"]) || jointsAre(w.joints, [" "]));
  const labelled = w.lengths.length === 1 && /\bssn|social security|\bss#/.test(context);
  if (!formatted && !labelled) return null;
  const area = w.digits.slice(0, 3);
  if (area === "000" || area === "666" || area[0] === "9") return null;
  if (w.digits.slice(3, 5) === "00" || w.digits.slice(5) === "0000") return null;
  return labelled ? 0.9 : 0.8;
}

function asCpf(w: Window, context: string): number | null {
  if (w.lead || w.digits.length !== 11) return null;
  const formatted = sameLengths(w.lengths, [3, 3, 3, 2]) && w.joints.join("") === "..-";
  const labelled = w.lengths.length === 1 && context.includes("cpf");
  return (formatted || labelled) && passesCpf(w.digits) ? 1 : null;
}

function asAadhaar(w: Window, context: string): number | null {
  if (w.lead || w.digits.length !== 12 || w.digits[0] === "0" || w.digits[0] === "1") return null;
  const formatted =
    sameLengths(w.lengths, [4, 4, 4]) && (jointsAre(w.joints, [" "]) || jointsAre(w.joints, ["-"]));
  const labelled = w.lengths.length === 1 && /aadhaa?r|uidai|आधार/.test(context);
  return (formatted || labelled) && passesVerhoeff(w.digits) ? 1 : null;
}

function asIpv4(w: Window, text: string): number | null {
  if (w.lead || w.lengths.length !== 4 || !jointsAre(w.joints, ["."])) return null;
  let offset = 0;
  for (const length of w.lengths) {
    if (length > 3 || Number(w.digits.slice(offset, offset + length)) > 255) return null;
    offset += length;
  }
  // "1.2.3.4.5" or "10.0.0.1." followed by a digit is a longer dotted number, not an address.
  const end = w.start + w.digits.length + 3;
  return text[end] === "." && isDigit(text.charCodeAt(end + 1)) ? null : 0.9;
}

const US_JOINTS = [" ", "-", ".", ") ", ")", ")-"];

function asPhone(w: Window): number | null {
  const { digits, lengths, joints } = w;
  if (w.lead === "+") return digits.length >= 8 && digits.length <= 15 && digits[0] !== "0" ? 0.9 : null;
  if (w.lead === "(" && !joints[0]?.startsWith(")")) return null;
  if (!jointsAre(joints, US_JOINTS)) return null;
  const us = sameLengths(lengths, [3, 3, 4]) || (sameLengths(lengths, [1, 3, 3, 4]) && digits[0] === "1");
  if (us) {
    const area = digits.length === 11 ? digits.slice(1) : digits;
    return area[0]! >= "2" && area[3]! >= "2" ? 0.8 : null;
  }
  if (w.lead) return null;
  // France: ten digits in pairs, 01 to 09.
  if (sameLengths(lengths, [2, 2, 2, 2, 2]) && digits[0] === "0" && digits[1] !== "0") return 0.8;
  // India: two groups of five, mobile numbers start 6 to 9.
  if (sameLengths(lengths, [5, 5]) && digits[0]! >= "6") return 0.7;
  // UK and Germany: a trunk "0", ten to twelve digits, an area or mobile prefix of three to five digits.
  const national = digits[0] === "0" && digits[1] !== "0" && digits.length >= 10 && digits.length <= 12;
  const grouped = lengths.length >= 2 && lengths.length <= 4 && lengths[0]! >= 3 && lengths[0]! <= 5;
  return national && grouped && lengths.every((length) => length >= 2) ? 0.7 : null;
}

function classify(w: Window, text: string): Omit<NumberHit, "start" | "end"> | null {
  const card = asCard(w);
  if (card !== null) return { entity: "payment_card", confidence: card };
  // The labels only matter for a bare run of 9, 11 or 12 digits: the text before is read for those alone.
  const context = w.lengths.length === 1 ? contextBefore(text, w.start) : "";
  const nationalId = asCpf(w, context) ?? asAadhaar(w, context);
  if (nationalId !== null) return { entity: "national_id", confidence: nationalId };
  const ssn = asSsn(w, context);
  if (ssn !== null) return { entity: "us_ssn", confidence: ssn };
  const ip = asIpv4(w, text);
  if (ip !== null) return { entity: "ip_address", confidence: ip };
  const phone = asPhone(w);
  return phone === null ? null : { entity: "phone", confidence: phone };
}

/** Reads the chain of digit groups starting at the digit at `start`. */
function readChain(text: string, start: number): Chain {
  const chain: Chain = { starts: [], ends: [], joints: [], lead: "" };
  const before = text[start - 1];
  if (before === "+" || before === "(") chain.lead = before;
  let i = start;
  for (;;) {
    const groupStart = i;
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    chain.starts.push(groupStart);
    chain.ends.push(i);
    let j = i;
    while (j < text.length && j - i < MAX_JOINT && SEPARATORS.includes(text[j]!)) j++;
    if (j === i || !isDigit(text.charCodeAt(j))) return chain;
    chain.joints.push(text.slice(i, j).replace("\u00a0", " "));
    i = j;
  }
}

/** An identifier glued to letters ("INV-2024-0042", "v1.2.3", "A1234B") is not a person's number. */
function isGlued(text: string, chain: Chain): boolean {
  const first = chain.starts[0]! - (chain.lead ? 1 : 0);
  const last = chain.ends[chain.ends.length - 1]!;
  const gluedBefore =
    isWordAt(text, first - 1) || ("-./".includes(text[first - 1] ?? " ") && isWordAt(text, first - 2));
  const gluedAfter = isWordAt(text, last) || ("-/".includes(text[last] ?? " ") && isWordAt(text, last + 1));
  return gluedBefore || gluedAfter;
}

function windowOf(chain: Chain, text: string, first: number, last: number): Window {
  let digits = "";
  const lengths: number[] = [];
  for (let g = first; g <= last; g++) {
    digits += text.slice(chain.starts[g], chain.ends[g]);
    lengths.push(chain.ends[g]! - chain.starts[g]!);
  }
  return {
    digits,
    lengths,
    joints: chain.joints.slice(first, last),
    lead: first === 0 ? chain.lead : "",
    start: chain.starts[first]!,
  };
}

// A window starts and ends where the chain does or at a plain space: never inside "123-45" or "10.0".
const breaksAt = (chain: Chain, joint: number) => chain.joints[joint] === " ";

function scanChain(text: string, chain: Chain, hits: NumberHit[]): void {
  const groups = chain.starts.length;
  let first = 0;
  while (first < groups) {
    let found = false;
    if (first === 0 || breaksAt(chain, first - 1)) {
      let last = first;
      let count = 0;
      while (last < groups && count + chain.ends[last]! - chain.starts[last]! <= MAX_DIGITS) {
        count += chain.ends[last]! - chain.starts[last]!;
        last++;
      }
      // Longest window first: "+1 415 555 0132" is one phone number, not a shorter one inside it.
      for (let end = last - 1; end >= first && !found; end--) {
        if (end !== groups - 1 && !breaksAt(chain, end)) continue;
        const window = windowOf(chain, text, first, end);
        const result = classify(window, text);
        if (!result) continue;
        const start = window.start - (window.lead ? 1 : 0);
        hits.push({ ...result, start, end: chain.ends[end]! });
        first = end + 1;
        found = true;
      }
    }
    if (!found) first++;
  }
}

/**
 * A lone group of fewer than nine digits without a "+" ("2024", "429", "88213") is no entity here: every one needs
 * nine digits in one group (a labelled SSN) or several groups. Most numbers in prose stop at this test.
 */
const cannotHoldAny = (chain: Chain) =>
  chain.starts.length === 1 && chain.lead !== "+" && chain.ends[0]! - chain.starts[0]! < 9;

/** Every card, SSN, IPv4 address, phone number, Aadhaar and CPF number in `text`. */
export function findPersonalNumbers(text: string): NumberHit[] {
  const hits: NumberHit[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const chain = readChain(text, i);
    i = chain.ends[chain.ends.length - 1]!;
    if (cannotHoldAny(chain) || isGlued(text, chain)) continue;
    const found: NumberHit[] = [];
    scanChain(text, chain, found);
    // The label before is read only for a chain that holds something (most numbers in prose hold nothing).
    if (found.length && !hasIdentifierLabel(text, chain.starts[0]! - (chain.lead ? 1 : 0)))
      hits.push(...found);
  }
  return hits;
}

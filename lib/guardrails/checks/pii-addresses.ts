/**
 * Email and IPv6 addresses, found by hand-written scans around their one telling character ("@", ":"): each scan
 * stops at the previous candidate, so no character is read more than twice.
 */
import { isAsciiAlphanumeric, isDigit, isWordAt, isWordCode } from "./characters";

export type AddressHit = { entity: "email" | "ip_address"; start: number; end: number; confidence: number };

const LOCAL_PUNCTUATION = "._%+-'";
// Internationalised addresses (RFC 6531) allow letters of any script before the "@" too.
const isLocalCode = (code: number) =>
  code > 127
    ? isWordCode(code)
    : isAsciiAlphanumeric(code) || LOCAL_PUNCTUATION.includes(String.fromCharCode(code));
// Internationalised domains are letters of any script; the "." and "-" between labels are checked below.
const isDomainCode = (code: number) =>
  code === 46 || code === 45 || (code > 127 ? code < 0xd800 : isAsciiAlphanumeric(code));

// How far back a URL's "://" is looked for: the user and password part of a URL is not an email address.
const MAX_URL_HEAD = 256;

function isUrlUserInfo(text: string, start: number): boolean {
  if (text[start - 1] !== ":") return false;
  for (let i = start - 2; i > 0 && start - i < MAX_URL_HEAD && text.charCodeAt(i) > 32; i--) {
    if (text[i] === "/" && text[i - 1] === "/" && text[i - 2] === ":") return true;
  }
  return false;
}

function emailAt(text: string, at: number, floor: number): AddressHit | null {
  let start = at;
  while (start > floor && at - start < 64 && isLocalCode(text.charCodeAt(start - 1))) start--;
  if (isUrlUserInfo(text, start)) return null;
  while (start < at && LOCAL_PUNCTUATION.includes(text[start]!)) start++;
  let end = at + 1;
  while (end < text.length && end - at < 254 && isDomainCode(text.charCodeAt(end))) end++;
  while (end > at + 1 && (text[end - 1] === "." || text[end - 1] === "-")) end--;
  if (start === at || end === at + 1) return null;
  const labels = text.slice(at + 1, end).split(".");
  const tld = labels[labels.length - 1]!;
  if (labels.length < 2 || labels.some((label) => label === "") || tld.length < 2 || /\d/.test(tld))
    return null;
  return { entity: "email", start, end, confidence: 0.95 };
}

function findEmails(text: string, hits: AddressHit[]): void {
  let floor = 0;
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    const hit = emailAt(text, at, floor);
    if (hit) hits.push(hit);
    floor = at + 1;
  }
}

const isHex = (code: number) => isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
const isIpv6Code = (code: number) => isHex(code) || code === 58;

/** An IPv6 address: eight groups of 1-4 hex digits, or fewer with one "::"; a digit somewhere (spares "dead::beef"). */
function isIpv6(candidate: string): boolean {
  if (!/\d/.test(candidate)) return false;
  const halves = candidate.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === "" ? [] : half.split(":")));
  if (groups.some((group) => group.length === 0 || group.length > 4)) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

// The longest IPv6 address in text form: eight groups of four and seven colons.
const MAX_IPV6 = 39;

function findIpv6(text: string, hits: AddressHit[]): void {
  let resume = 0;
  for (let colon = text.indexOf(":"); colon >= 0; colon = text.indexOf(":", Math.max(colon + 1, resume))) {
    let start = colon;
    while (start > resume && colon - start < MAX_IPV6 && isIpv6Code(text.charCodeAt(start - 1))) start--;
    let end = colon + 1;
    while (end < text.length && end - start < MAX_IPV6 && isIpv6Code(text.charCodeAt(end))) end++;
    resume = end;
    // A run glued to a word ("std::map", "abc:def:1x") is code or a name, not an address.
    if (isWordAt(text, start - 1) || isWordAt(text, end)) continue;
    const candidate = text.slice(start, end);
    if (candidate.indexOf(":") !== candidate.lastIndexOf(":") && isIpv6(candidate)) {
      hits.push({ entity: "ip_address", start, end, confidence: 0.9 });
    }
  }
}

/** Every email and IPv6 address in `text`; each scan runs only when its telling character is there. */
export function findAddresses(text: string): AddressHit[] {
  const hits: AddressHit[] = [];
  if (text.includes("@")) findEmails(text, hits);
  if (text.includes(":")) findIpv6(text, hits);
  return hits;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/** Decodes named and numeric entities in one pass, so "&amp;lt;" stays "&lt;". */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (match, body: string) => {
    if (body[0] !== "#") return ENTITIES[body.toLowerCase()] ?? match;
    const code =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : "\uFFFD";
  });
}

const HIDDEN = "script|style|noscript|svg|template|iframe|object|title";
const BLOCK =
  "p|div|br|hr|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|thead|tbody|tfoot|section|article|header|footer|nav|main|" +
  "aside|blockquote|pre|figure|figcaption|form|fieldset|details|summary|address|caption|body|html";

/**
 * Readable text of an HTML page: hidden parts dropped, blocks on their own lines, tags gone, entities decoded.
 * The page is anyone's text, so every pattern is linear: a tag ends at the next "<" or ">" (with "[^>]*", 50 KB of
 * "<p" took 13 s), and an element whose end never comes matches to the end once instead of failing from every start.
 */
export function htmlToText(html: string): { title?: string; text: string } {
  const titleMatch = /<title\b[^<>]*>([\s\S]*?)(<\/title\s*>|$)/i.exec(html);
  const title = titleMatch?.[2] ? collapse(decodeEntities(titleMatch[1] ?? "")).replace(/\n/g, " ") : "";
  const text = html
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    // The head's end tag is optional in HTML, so it also ends where the body starts; a head that never ends stays.
    .replace(
      /<head\b[^<>]*>[\s\S]*?(?:(<\/head\s*>)|(?=(<body\b))|$)/gi,
      (match, end?: string, body?: string) => (end === undefined && body === undefined ? match : ""),
    )
    .replace(new RegExp(`<(${HIDDEN})\\b[^<>]*>[\\s\\S]*?(<\\/\\1\\s*>|$)`, "gi"), "")
    .replace(new RegExp(`<\\/?(${BLOCK})\\b[^<>]*>`, "gi"), "\n")
    .replace(/<\/?t[dh]\b[^<>]*>/gi, " ")
    .replace(/<[a-z/!?][^<>]*>/gi, "");
  return { ...(title ? { title } : {}), text: collapse(decodeEntities(text)) };
}

/** Single spaces within lines and no blank lines: the model pays for every character. */
function collapse(text: string): string {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .join("\n")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

// A conversation title is plain text: markdown a first message was written in (headings, emphasis, links, code,
// list and quote markers, table pipes) is dropped, on the server when the title is made and in the browser when
// an older title is shown. Browser-safe: no imports.

const TITLE_LENGTH = 60;

/** One line of markdown as the words it shows. */
export function plainLine(line: string): string {
  let text = line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/<\/?[a-z][^>]*>/gi, "");
  // Block markers at the start: headings, quotes, list items and task boxes, possibly nested ("> - # x").
  text = text.replace(/^(\s*(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+))+/, "");
  text = text
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "$1")
    // Single * or _ emphasis, but not inside words (snake_case, 2*3*4).
    .replace(/(^|[^\p{L}\p{N}*_])([*_])(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}*_])/gu, "$1$3");
  if (/^\s*\|.*\|\s*$/.test(text))
    text = text
      .replace(/^\s*\||\|\s*$/g, "")
      .split("|")
      .map((cell) => cell.trim())
      .filter(Boolean)
      .join(" · ");
  return text.replace(/\s+/g, " ").trim();
}

/** Lines that carry no words of their own: code fences, rules, a table's separator row. */
const NO_WORDS = /^\s*(```|~~~|([-*_]\s*){3,}$|\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$)/;

/** A title from a message: its first line with words, as plain text, shortened; "" when it has none. */
export function plainTitle(text: string, max = TITLE_LENGTH): string {
  for (const line of text.split("\n")) {
    if (NO_WORDS.test(line)) continue;
    const plain = plainLine(line);
    if (plain) return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
  }
  return "";
}

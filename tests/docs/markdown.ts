// What the documentation tests read from Markdown: the files they cover, the text outside code, headings as
// GitHub turns them into anchors, and the links in the text.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

const SKIP = new Set(["node_modules", ".next", ".git", ".data", "reports", "test-results"]);

/** Every file under `dir` (relative to the root) whose name passes `keep`, as root-relative paths. */
export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(ROOT, rel);
    if (!existsSync(abs)) return;
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (keep(entry.name)) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

export const readText = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
export const exists = (file: string) => existsSync(path.join(ROOT, file));
export const isDirectory = (file: string) => exists(file) && statSync(path.join(ROOT, file)).isDirectory();

/**
 * The file's lines with fenced code blocks blanked (numbering kept), so neither links nor headings are read from
 * code. A fence is ``` or ~~~ (three or more) and ends at the same character repeated at least as often.
 */
export function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split("\n").map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (
        open &&
        open[1]![0] === fence[0] &&
        open[1]!.length >= fence.length &&
        !/\S/.test(line.slice(open[0].length))
      )
        fence = null;
      return "";
    }
    if (open) {
      fence = open[1]!;
      return "";
    }
    return line;
  });
}

/** A heading's text as GitHub renders it: code spans and emphasis unwrapped, links reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/(\*\*|__|\*)(.+?)\1/g, "$2")
    .trim();
}

/**
 * GitHub's heading slug: lower case; every character that is not a letter, mark, number, connector (`_`), space or
 * hyphen dropped; each space a hyphen. Duplicates get -1, -2… in the order they appear.
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = headingText(heading[1]!)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  // HTML anchors (`<a name="…">`, `id="…"`) are targets too.
  for (const match of text.matchAll(/<a\s+[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

export type Link = { target: string; line: number };

/**
 * The links of a Markdown file, outside code: inline `[text](target)` and images, reference definitions
 * `[name]: target`, and HTML `href`/`src` attributes. Inline code spans are skipped.
 */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  proseLines(text).forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
    const add = (target: string) => links.push({ target: target.trim(), line: index + 1 });
    for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)/g))
      add(m[1]!.replace(/^<|>$/g, ""));
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) add(definition[1]!.replace(/^<|>$/g, ""));
    for (const m of line.matchAll(/\b(?:href|src)="([^"]+)"/g)) add(m[1]!);
  });
  return links;
}

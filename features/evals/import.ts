// Pasted dataset items, read in the browser before anything is saved: JSONL (one item per line, as the API takes
// it) or CSV with the columns input and expected (and optionally metadata). Each line is checked against the
// route's own contract, so the preview names the lines the server would refuse. Browser-safe and pure.
import type { z } from "zod";
import { datasetItemInput } from "./contracts";

export type DatasetItem = z.output<typeof datasetItemInput>;
/** One line of the paste: its 1-based line number and either the item it makes or why it makes none. */
export type ParsedLine = { line: number; item: DatasetItem } | { line: number; error: string };
export type ParseResult = {
  items: DatasetItem[];
  errors: { line: number; error: string }[];
  lines: ParsedLine[];
};
export type ImportFormat = "jsonl" | "csv";

/** The first problem zod found, with where in the item it is ("input.messages.0.role: …"). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid item";
  const at = issue.path.map(String).join(".");
  return at ? `${at}: ${issue.message}` : issue.message;
}

/** Text typed as an input: one user message. */
export const textInput = (text: string) => ({ messages: [{ role: "user" as const, content: text }] });

function finish(lines: ParsedLine[]): ParseResult {
  const items: DatasetItem[] = [];
  const errors: { line: number; error: string }[] = [];
  for (const l of lines) {
    if ("item" in l) items.push(l.item);
    else errors.push({ line: l.line, error: l.error });
  }
  return { items, errors, lines };
}

function check(line: number, candidate: unknown): ParsedLine {
  const parsed = datasetItemInput.safeParse(candidate);
  return parsed.success ? { line, item: parsed.data } : { line, error: firstIssue(parsed.error) };
}

/**
 * JSONL: each non-blank line one item, `{input, expected?, metadata?}`; an `input` given as a string is taken as
 * one user message, the way the CSV columns are.
 */
export function parseJsonl(text: string): ParseResult {
  const lines: ParsedLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      lines.push({ line, error: "not valid JSON" });
      return;
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      lines.push({ line, error: "each line must be a JSON object with an input" });
      return;
    }
    const record = value as Record<string, unknown>;
    const candidate =
      typeof record.input === "string" ? { ...record, input: textInput(record.input) } : record;
    lines.push(check(line, candidate));
  });
  return finish(lines);
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. Each row keeps its first line. */
export function csvRows(text: string): { line: number; cells: string[] }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let touched = false;
  const endRow = () => {
    cells.push(cell);
    if (touched || cells.length > 1 || cell !== "") rows.push({ line: rowLine, cells });
    cells = [];
    cell = "";
    touched = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        cell += c;
      }
    } else if (c === '"') {
      quoted = true;
      touched = true;
    } else if (c === ",") {
      cells.push(cell);
      cell = "";
      touched = true;
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += c;
  }
  if (cell !== "" || cells.length || touched) endRow();
  return rows;
}

/** A cell that holds JSON (an object or array) is that value; any other text stays text. */
function jsonOrText(cell: string): unknown {
  const trimmed = cell.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return cell;
    }
  }
  return cell;
}

/**
 * CSV with a header row naming `input` (required), `expected` and `metadata` (optional). An input cell that is
 * JSON (`{"messages": …}` or `{"variables": …}`) is taken as it is; any other text becomes one user message.
 * An empty expected cell means no expected output.
 */
export function parseCsv(text: string): ParseResult {
  const rows = csvRows(text.replace(/^\uFEFF/, ""));
  const header = rows.shift();
  if (!header) return finish([]);
  const names = header.cells.map((h) => h.trim().toLowerCase());
  const at = (name: string) => names.indexOf(name);
  const [inputAt, expectedAt, metadataAt] = [at("input"), at("expected"), at("metadata")];
  if (inputAt < 0) return finish([{ line: header.line, error: "the header row must name an input column" }]);
  const lines: ParsedLine[] = [];
  for (const row of rows) {
    if (row.cells.every((c) => !c.trim())) continue;
    if (row.cells.length > names.length) {
      lines.push({
        line: row.line,
        error: `${row.cells.length} cells, but the header names ${names.length}`,
      });
      continue;
    }
    const inputCell = row.cells[inputAt] ?? "";
    if (!inputCell.trim()) {
      lines.push({ line: row.line, error: "input: empty" });
      continue;
    }
    const inputValue = jsonOrText(inputCell);
    const candidate: Record<string, unknown> = {
      input: typeof inputValue === "string" ? textInput(inputValue) : inputValue,
    };
    const expected = expectedAt >= 0 ? (row.cells[expectedAt] ?? "") : "";
    if (expected !== "") candidate.expected = jsonOrText(expected);
    const metadata = metadataAt >= 0 ? (row.cells[metadataAt] ?? "").trim() : "";
    if (metadata) {
      const value = jsonOrText(metadata);
      if (typeof value === "string") {
        lines.push({ line: row.line, error: "metadata: not a JSON object" });
        continue;
      }
      candidate.metadata = value;
    }
    lines.push(check(row.line, candidate));
  }
  return finish(lines);
}

/** JSONL when the first non-blank character opens a JSON object, else CSV. */
export const guessFormat = (text: string): ImportFormat => (/^\s*\{/.test(text) ? "jsonl" : "csv");

export const parseItems = (text: string, format: ImportFormat): ParseResult =>
  format === "jsonl" ? parseJsonl(text) : parseCsv(text);

/** An input in one line for a table cell: the last user message, or the variables as `name=value`. */
export function inputSummary(input: unknown): string {
  if (input && typeof input === "object") {
    const value = input as {
      messages?: { role: string; content: string }[];
      variables?: Record<string, string>;
    };
    if (Array.isArray(value.messages)) {
      const users = value.messages.filter((m) => m.role === "user");
      const last = users[users.length - 1] ?? value.messages[value.messages.length - 1];
      return last?.content ?? "";
    }
    if (value.variables && typeof value.variables === "object")
      return Object.entries(value.variables)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");
  }
  return typeof input === "string" ? input : JSON.stringify(input ?? null);
}

/** An expected output for a table cell: text as it is, JSON as JSON, none as empty. */
export const expectedSummary = (expected: unknown): string =>
  expected === null || expected === undefined
    ? ""
    : typeof expected === "string"
      ? expected
      : JSON.stringify(expected);

// How the keys page reads and shows a key's allowed tools. Pure and browser-safe.

/** Tool names typed by an admin, separated by commas or whitespace; empty entries dropped, repeats kept once. */
export function parseToolNames(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** The list as the table shows it: all (null), none ([]), the names when a few, else how many. */
export function allowedToolsSummary(
  allowedTools: readonly string[] | null,
  words: { all: string; none: string; count: (count: number) => string },
): string {
  if (allowedTools === null) return words.all;
  if (!allowedTools.length) return words.none;
  return allowedTools.length <= 3 ? allowedTools.join(", ") : words.count(allowedTools.length);
}

/**
 * While an answer streams, a markdown table at its end is not finished: rendered as it arrives it shows raw
 * pipes, then jumps into a table. This splits the text into what can render now and the table rows still
 * coming; a table is complete once a blank line or another block follows it, or the answer has ended.
 */
export function splitPendingTable(text: string, streaming: boolean): { ready: string; pendingRows: number } {
  if (!streaming) return { ready: text, pendingRows: 0 };
  const lines = text.split("\n");
  // A final newline only ends the current row; the table may go on.
  const end = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  let start = end;
  while (start > 0 && /^\s{0,3}\|/.test(lines[start - 1]!)) start--;
  if (start === end) return { ready: text, pendingRows: 0 };
  // Pipes inside an open code block are code, not a table.
  const fences = lines.slice(0, start).filter((l) => /^\s{0,3}(```|~~~)/.test(l)).length;
  if (fences % 2 === 1) return { ready: text, pendingRows: 0 };
  const rows = lines.slice(start, end).filter((l) => !/^\s*\|?[\s:|-]*$/.test(l)).length;
  return { ready: lines.slice(0, start).join("\n"), pendingRows: Math.max(rows, 1) };
}

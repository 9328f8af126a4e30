// A line diff for comparing two prompt versions side by side. Pure and browser-safe.

export type DiffOp = { kind: "same" | "removed" | "added"; text: string };

/** One row of a side-by-side view: the old line on the left, the new on the right (either may be absent). */
export type DiffRow = {
  kind: "same" | "removed" | "added" | "changed";
  left: { n: number; text: string } | null;
  right: { n: number; text: string } | null;
};

/** Past this many cells the LCS table is not built: the differing middle is shown as removed, then added. */
const MAX_CELLS = 4_000_000;

/** The edit script from `a` to `b` (longest common subsequence of lines, common ends trimmed first). */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffOp => ({ kind: "same", text }));
  const tail = a.slice(endA).map((text): DiffOp => ({ kind: "same", text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...middle(midA, midB), ...tail];
}

function middle(a: string[], b: string[]): DiffOp[] {
  const removed = (text: string): DiffOp => ({ kind: "removed", text });
  const added = (text: string): DiffOp => ({ kind: "added", text });
  if (!a.length || !b.length || a.length * b.length > MAX_CELLS) return [...a.map(removed), ...b.map(added)];
  // lcs[i][j]: the LCS length of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: "same", text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) ops.push(removed(a[i++]!));
    else ops.push(added(b[j++]!));
  }
  while (i < a.length) ops.push(removed(a[i++]!));
  while (j < b.length) ops.push(added(b[j++]!));
  return ops;
}

/** The edit script as side-by-side rows: a run of removed lines faces the run of added lines after it. */
export function sideBySide(ops: DiffOp[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let left = 0;
  let right = 0;
  for (let k = 0; k < ops.length; ) {
    const op = ops[k]!;
    if (op.kind === "same") {
      rows.push({ kind: "same", left: { n: ++left, text: op.text }, right: { n: ++right, text: op.text } });
      k++;
      continue;
    }
    const gone: string[] = [];
    const come: string[] = [];
    while (k < ops.length && ops[k]!.kind === "removed") gone.push(ops[k++]!.text);
    while (k < ops.length && ops[k]!.kind === "added") come.push(ops[k++]!.text);
    for (let r = 0; r < Math.max(gone.length, come.length); r++) {
      const l = r < gone.length ? { n: ++left, text: gone[r]! } : null;
      const g = r < come.length ? { n: ++right, text: come[r]! } : null;
      rows.push({ kind: l && g ? "changed" : l ? "removed" : "added", left: l, right: g });
    }
  }
  return rows;
}

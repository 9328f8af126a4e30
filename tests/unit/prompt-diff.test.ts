import { describe, expect, it } from "vitest";
import { diffLines, sideBySide } from "@/lib/core/text/line-diff";

const kinds = (ops: { kind: string; text: string }[]) => ops.map((o) => `${o.kind[0]}:${o.text}`);

describe("prompt line diff", () => {
  it("keeps common lines and marks what was removed and added", () => {
    expect(kinds(diffLines(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"]))).toEqual([
      "s:a",
      "r:b",
      "a:x",
      "s:c",
      "s:d",
      "a:e",
    ]);
  });

  it("finds the longest common subsequence, not just the common ends", () => {
    const ops = diffLines(["1", "2", "3", "4", "5"], ["0", "2", "4", "5", "6"]);
    expect(ops.filter((o) => o.kind === "same").map((o) => o.text)).toEqual(["2", "4", "5"]);
    // Applying the script to the old lines gives the new ones.
    expect(ops.filter((o) => o.kind !== "removed").map((o) => o.text)).toEqual(["0", "2", "4", "5", "6"]);
    expect(ops.filter((o) => o.kind !== "added").map((o) => o.text)).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("identical and empty inputs", () => {
    expect(diffLines(["a"], ["a"])).toEqual([{ kind: "same", text: "a" }]);
    expect(kinds(diffLines([], ["a"]))).toEqual(["a:a"]);
    expect(kinds(diffLines(["a"], []))).toEqual(["r:a"]);
  });

  it("pairs a removed run with the added run after it, numbering each side", () => {
    const rows = sideBySide(diffLines(["a", "b", "c", "z"], ["a", "B", "z", "y"]));
    expect(rows).toEqual([
      { kind: "same", left: { n: 1, text: "a" }, right: { n: 1, text: "a" } },
      { kind: "changed", left: { n: 2, text: "b" }, right: { n: 2, text: "B" } },
      { kind: "removed", left: { n: 3, text: "c" }, right: null },
      { kind: "same", left: { n: 4, text: "z" }, right: { n: 3, text: "z" } },
      { kind: "added", left: null, right: { n: 4, text: "y" } },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { cleanedValues } from "@/lib/core/errors/failures";
import { cleanDeep, cleanRow, cleanRows, cleanText } from "@/lib/core/text/clean-text";

describe("cleaning text before a governance write", () => {
  it("replaces NUL and lone surrogates with U+FFFD and keeps valid pairs", () => {
    expect(cleanText("a\u0000b")).toBe("a\ufffdb");
    expect(cleanText("x\ud800y")).toBe("x\ufffdy");
    expect(cleanText("x\udc00")).toBe("x\ufffd");
    expect(cleanText("\udc00\ud800")).toBe("\ufffd\ufffd");
    expect(cleanText("emoji 😀 ok")).toBe("emoji 😀 ok");
    const clean = "plain text";
    expect(cleanText(clean)).toBe(clean);
  });

  it("cleans every string of a jsonb payload, keys included, and keeps dates and the untouched rows", () => {
    const at = new Date();
    const row = {
      id: "t1",
      at,
      payload: { message: "hi\u0000", list: ["ok", { "k\ud800": "v" }], n: 3, none: null },
    };
    const cleaned = cleanDeep(row);
    expect(cleaned).toEqual({
      id: "t1",
      at,
      payload: { message: "hi\ufffd", list: ["ok", { "k\ufffd": "v" }], n: 3, none: null },
    });
    expect(cleaned.at).toBe(at);
    expect(row.payload.message).toBe("hi\u0000");
    const untouched = { a: "b", c: [1, "d"] };
    expect(cleanDeep(untouched)).toBe(untouched);
  });

  it("counts the rows it cleaned", () => {
    const before = cleanedValues();
    const rows = [{ a: "fine" }, { a: "bad\u0000" }, { a: "\ud83d" }];
    expect(cleanRows(rows)).toEqual([{ a: "fine" }, { a: "bad\ufffd" }, { a: "\ufffd" }]);
    expect(cleanRow({ a: "fine" })).toEqual({ a: "fine" });
    expect(cleanedValues() - before).toBe(2);
  });
});

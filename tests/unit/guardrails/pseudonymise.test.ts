import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Pseudonyms } from "@/lib/guardrails/pseudonymise";

describe("Pseudonyms", () => {
  it("numbers each distinct original and gives the same original the same placeholder", () => {
    const pseudonyms = new Pseudonyms();
    expect(pseudonyms.placeholderFor("EMAIL", "a@x.io")).toBe("[EMAIL_1]");
    expect(pseudonyms.placeholderFor("EMAIL", "b@x.io")).toBe("[EMAIL_2]");
    expect(pseudonyms.placeholderFor("EMAIL", "a@x.io")).toBe("[EMAIL_1]");
    expect(pseudonyms.placeholderFor("PHONE", "555")).toBe("[PHONE_1]");
  });

  it("restores a whole answer and leaves placeholders of no original alone", () => {
    const pseudonyms = new Pseudonyms();
    pseudonyms.placeholderFor("EMAIL", "a@x.io");
    pseudonyms.placeholderFor("SECRET:aws_access_key", "AKIA1");
    expect(pseudonyms.restore("Mail [EMAIL_1], not [EMAIL_9]; key [SECRET:aws_access_key_1]")).toBe(
      "Mail a@x.io, not [EMAIL_9]; key AKIA1",
    );
  });

  it("never shows its mapping to JSON, util.inspect or String()", () => {
    const pseudonyms = new Pseudonyms();
    pseudonyms.placeholderFor("EMAIL", "secret@x.io");
    const printed = [
      JSON.stringify({ pseudonyms }),
      inspect(pseudonyms, { showHidden: true }),
      String(pseudonyms),
    ];
    for (const text of printed) {
      expect(text).not.toContain("secret@x.io");
      expect(text).toContain("[pseudonyms]");
    }
  });

  it("restores a stream whose placeholder is split over several deltas", () => {
    const pseudonyms = new Pseudonyms();
    pseudonyms.placeholderFor("EMAIL", "a@x.io");
    const restorer = pseudonyms.restorer();
    const parts = ["Write to [EM", "AIL", "_1", "] today [", "not a placeholder] ok"].map((delta) =>
      restorer.push(delta),
    );
    parts.push(restorer.end());
    expect(parts.join("")).toBe("Write to a@x.io today [not a placeholder] ok");
    expect(parts[1]).toBe("");
    expect(parts[3]).toBe("a@x.io today ");
  });

  it("lets a bracket through once it is longer than any placeholder", () => {
    const pseudonyms = new Pseudonyms();
    pseudonyms.placeholderFor("EMAIL", "a@x.io");
    const restorer = pseudonyms.restorer();
    expect(restorer.push("[ABCDEFGHIJKLMNOP")).toBe("[ABCDEFGHIJKLMNOP");
    expect(restorer.push("[EMAIL_")).toBe("");
    expect(restorer.end()).toBe("[EMAIL_");
  });
});

import { describe, expect, it } from "vitest";
import { UnsupportedPatternError } from "@/lib/core/text/linear-regex";
import { checkJsonSchema, describeJsonSchemaMismatch } from "@/lib/guardrails/checks";

const schema = {
  type: "object",
  properties: { sku: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" }, quantity: { type: "integer" } },
  required: ["sku"],
};

describe("checkJsonSchema", () => {
  it("a matching answer has no hits", () => {
    expect(checkJsonSchema('{"sku": "ABC-1234", "quantity": 2}', schema)).toEqual([]);
  });

  it("text that is not JSON is one invalid_json hit over the whole text", () => {
    const text = "Sure! Here is the JSON: {";
    expect(checkJsonSchema(text, schema)).toEqual([
      { check: "json_schema", entity: "invalid_json", start: 0, end: text.length, confidence: 1 },
    ]);
  });

  it("JSON that does not match is one schema_mismatch hit, and the reason names the field", () => {
    const text = '{"sku": "abc", "quantity": 1.5}';
    expect(checkJsonSchema(text, schema).map((hit) => hit.entity)).toEqual(["schema_mismatch"]);
    expect(describeJsonSchemaMismatch(text, schema)).toMatch(/sku.*pattern/);
  });

  it("the schema's patterns run on RE2: one RE2 cannot run is refused", () => {
    expect(() => checkJsonSchema('"a"', { type: "string", pattern: "(a)\\1" })).toThrow(
      UnsupportedPatternError,
    );
  });
});

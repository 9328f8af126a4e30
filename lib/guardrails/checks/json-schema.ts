/**
 * The `json_schema` output check: the answer parses as JSON and matches the schema. Schemas come from tenants, so
 * their `pattern`s run on RE2 (linear time) like the eval scorer's; each schema compiles once and is kept while the
 * caller keeps the schema object.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { describeSchemaErrors } from "@/lib/core/schema/json-schema";
import { linearRegExpEngine } from "@/lib/core/text/linear-regex";
import type { GuardrailHit } from "@/lib/guardrails/types";

const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const wholeText = (text: string, entity: string): GuardrailHit => ({
  check: "json_schema",
  entity,
  start: 0,
  end: text.length,
  confidence: 1,
});

/** What `text` lacks: nothing, `invalid_json`, or `schema_mismatch`. A schema ajv cannot compile throws. */
export function checkJsonSchema(text: string, schema: object): GuardrailHit[] {
  const validate = validatorFor(schema);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [wholeText(text, "invalid_json")];
  }
  return validate(value) ? [] : [wholeText(text, "schema_mismatch")];
}

/** Why `text` does not match `schema`, in one line (for a log or a refusal's message); null when it does. */
export function describeJsonSchemaMismatch(text: string, schema: object): string | null {
  const validate = validatorFor(schema);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  return validate(value) ? null : describeSchemaErrors(validate.errors ?? []);
}

import type { ErrorObject } from "ajv";

/** ajv errors as one line a person can act on: the field path and what was expected. */
export function describeSchemaErrors(errors: ErrorObject[]): string {
  // Report the deepest errors first: "providers.openai.type must be one of …" beats "must match a schema".
  const first = errors[0];
  if (!first) return "invalid";
  return errors
    .slice(0, 3)
    .map((e) => {
      const at =
        e.instancePath
          .replace(/^\//, "")
          .replace(/\//g, ".")
          .replace(/\.(\d+)(?=\.|$)/g, "[$1]") || "(top level)";
      if (e.keyword === "additionalProperties") {
        return `${at === "(top level)" ? "" : `${at}.`}${(e.params as { additionalProperty: string }).additionalProperty} is not a known field`;
      }
      if (e.keyword === "required") {
        return `${at === "(top level)" ? "" : `${at}.`}${(e.params as { missingProperty: string }).missingProperty} is required`;
      }
      if (e.keyword === "enum") {
        return `${at} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
      }
      return `${at} ${e.message ?? "is invalid"}`;
    })
    .join("; ");
}

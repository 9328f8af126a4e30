/** The header that puts a /v1 or /mcp call into a run (a piece of work made of several calls). */
export const RUN_ID_HEADER = "x-tollgate-run-id";
export const RUN_ID_MAX = 128;

// Printable ASCII (space to tilde), with no space at either end: what survives an HTTP header unchanged.
const RUN_ID = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** What a run id must be, said to a caller whose id was refused. */
export const RUN_ID_RULE = `must be 1 to ${RUN_ID_MAX} printable ASCII characters, not starting or ending with a space`;

/** A caller's run id if it is one (1 to 128 printable ASCII characters), else null. */
export function validRunId(value: unknown): string | null {
  return typeof value === "string" && value.length <= RUN_ID_MAX && RUN_ID.test(value) ? value : null;
}

// The review form's state, kept pure so the keyboard and the buttons change it the same way and tests can read it:
// which scores the queue asks (from the tenant's score configs), the values picked, and what a submit sends.
// Browser-safe: no React, no server code.
import type { ScoreConfigView } from "@/features/scores/contracts";
import { FEEDBACK_SCORE } from "@/features/scores/contracts";

/** One score the form asks: true / false, one of its categories, or a number (within its range when it has one). */
export type ScoreField =
  | { name: string; kind: "boolean" }
  | { name: string; kind: "categorical"; categories: string[] }
  | { name: string; kind: "numeric"; min: number | null; max: number | null };

export type ScoreValue = boolean | string | number;
/** The values picked so far, by score name; a numeric score's value is its input's text until it is sent. */
export type FormValues = Record<string, ScoreValue | undefined>;

/** The most options a digit key picks from (1–9). */
export const KEY_OPTIONS = 9;

/**
 * The fields the form asks, in the queue's order: each name's live config decides its kind; `thumbs` is the
 * drawer's boolean; a name with no live config is a number without a range (the server's check still holds).
 */
export function fieldsOf(scoreNames: readonly string[], configs: readonly ScoreConfigView[]): ScoreField[] {
  const live = new Map(configs.filter((c) => !c.archivedAt).map((c) => [c.name, c]));
  return scoreNames.map((name): ScoreField => {
    const config = live.get(name);
    if (config?.type === "boolean" || (!config && name === FEEDBACK_SCORE)) return { name, kind: "boolean" };
    if (config?.type === "categorical")
      return { name, kind: "categorical", categories: [...config.categories] };
    return { name, kind: "numeric", min: config?.min ?? null, max: config?.max ?? null };
  });
}

/**
 * What a field's buttons (and digit keys) offer: true / false, its categories, or each whole number of a numeric
 * range of at most nine; a wider or open range has no buttons (its number input takes the value).
 */
export function optionsOf(field: ScoreField): ScoreValue[] {
  if (field.kind === "boolean") return [true, false];
  if (field.kind === "categorical") return field.categories;
  const { min, max } = field;
  if (min === null || max === null || !Number.isInteger(min) || !Number.isInteger(max)) return [];
  if (max - min + 1 > KEY_OPTIONS || max < min) return [];
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

const answered = (value: ScoreValue | undefined) => value !== undefined && value !== "";

/**
 * The field the keys act on: the one holding the focus, else the first not answered yet, else the last (so a
 * digit after the last answer changes it rather than doing nothing).
 */
export function activeField(
  fields: readonly ScoreField[],
  values: FormValues,
  focused: string | null,
): number {
  const at = focused === null ? -1 : fields.findIndex((f) => f.name === focused);
  if (at >= 0) return at;
  const open = fields.findIndex((f) => !answered(values[f.name]));
  return open >= 0 ? open : fields.length - 1;
}

/** The values after a digit key: the n-th option (1-based) of the active field; unchanged when it has none. */
export function pickOption(
  fields: readonly ScoreField[],
  values: FormValues,
  focused: string | null,
  n: number,
): FormValues {
  const field = fields[activeField(fields, values, focused)];
  const option = field ? optionsOf(field)[n - 1] : undefined;
  return field && option !== undefined ? { ...values, [field.name]: option } : values;
}

/**
 * The values after `y` or `n`: the active field when it is a boolean, else the first boolean not answered yet,
 * else the first boolean; unchanged when the form asks none.
 */
export function answerYesNo(
  fields: readonly ScoreField[],
  values: FormValues,
  focused: string | null,
  yes: boolean,
): FormValues {
  const active = fields[activeField(fields, values, focused)];
  const target =
    active?.kind === "boolean"
      ? active
      : (fields.find((f) => f.kind === "boolean" && !answered(values[f.name])) ??
        fields.find((f) => f.kind === "boolean"));
  return target ? { ...values, [target.name]: yes } : values;
}

export type Submission = { name: string; value: ScoreValue }[];

/**
 * What a submit sends, or the fields that stop it (by name, with why): every score asked must be answered, and a
 * number must be a finite number within its range.
 */
export function toSubmission(
  fields: readonly ScoreField[],
  values: FormValues,
):
  | { ok: true; scores: Submission }
  | { ok: false; problems: Record<string, "missing" | "notNumber" | "range"> } {
  const scores: Submission = [];
  const problems: Record<string, "missing" | "notNumber" | "range"> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (!answered(value)) {
      problems[field.name] = "missing";
      continue;
    }
    if (field.kind !== "numeric") {
      scores.push({ name: field.name, value: value as ScoreValue });
      continue;
    }
    const number = typeof value === "number" ? value : Number(String(value).trim());
    if (!Number.isFinite(number)) problems[field.name] = "notNumber";
    else if ((field.min !== null && number < field.min) || (field.max !== null && number > field.max))
      problems[field.name] = "range";
    else scores.push({ name: field.name, value: number });
  }
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, scores };
}

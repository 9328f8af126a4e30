/** The one place a translator decides a field cannot be carried: refused (400), or dropped when the alias allows. */
import { type Json, Untranslatable } from "./types";

export class FieldRules {
  /** Paths left out, in the order met: hints, and (on the alias's say-so) whatever cannot be carried. */
  readonly dropped: string[] = [];
  constructor(
    private readonly dropUnsupported: boolean,
    private readonly strict = false,
  ) {}

  /** The field cannot be carried: throws, or (dropUnsupported) records it so the caller leaves it out. */
  refuse(field: string, reason: string): void {
    if (!this.dropUnsupported) throw new Untranslatable(field, reason);
    this.dropped.push(field);
  }

  /**
   * A hint the other side has no equivalent for (it asks for no different answer: an author's name, an image's
   * resolution, a capacity tier): left out and listed, unless the alias is `strict`, which refuses it as any
   * other field.
   */
  hint(field: string, reason: string): void {
    if (this.strict && !this.dropUnsupported)
      throw new Untranslatable(field, `${reason} (the alias is strict)`);
    this.dropped.push(field);
  }

  /** Refuses every key of `obj` not in `known`: an unknown field is never silently lost. */
  onlyKnown(obj: Json, known: readonly string[], prefix: string): void {
    for (const key of Object.keys(obj)) {
      if (!known.includes(key)) this.refuse(join(prefix, key), "not translated to the other format");
    }
  }
}

/** A shape the caller's own API would reject: never droppable, since nothing sensible would remain. */
export function invalid(field: string, reason: string): never {
  throw new Untranslatable(field, reason);
}

export const join = (prefix: string, key: string | number) => (prefix ? `${prefix}.${key}` : String(key));

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Absent or JSON null: both mean "the default" in OpenAI's nullable fields. */
export const isUnset = (v: unknown) => v === undefined || v === null;

export function asObject(v: unknown, field: string): Json {
  return isObject(v) ? v : invalid(field, "expected an object");
}

export function asArray(v: unknown, field: string): unknown[] {
  return Array.isArray(v) ? v : invalid(field, "expected an array");
}

export function asString(v: unknown, field: string): string {
  return typeof v === "string" ? v : invalid(field, "expected a string");
}

export function asNumber(v: unknown, field: string): number {
  return typeof v === "number" && Number.isFinite(v) ? v : invalid(field, "expected a number");
}

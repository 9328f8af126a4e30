/**
 * Reversible pseudonymisation for one call: each distinct original a redact rule finds becomes a numbered
 * placeholder (`[EMAIL_1]`; the same original gets the same placeholder throughout the call), and the answer is
 * turned back before the caller sees it. The mapping lives in this object only: it is never stored, and it prints
 * as "[pseudonyms]" to JSON, util.inspect and String() so a log line cannot leak it.
 */

/** A placeholder this module writes: `[LABEL_n]`, the label being an entity (`EMAIL`) or `SECRET:aws_access_key`. */
const PLACEHOLDER = /\[[A-Za-z0-9_:]+_\d+\]/g;
// What may follow `[` in a placeholder that has not fully arrived yet.
const PARTIAL_PLACEHOLDER = /^\[[A-Za-z0-9_:]*$/;

export class Pseudonyms {
  readonly #placeholderByOriginal = new Map<string, string>();
  readonly #originalByPlaceholder = new Map<string, string>();
  readonly #countByLabel = new Map<string, number>();
  #longest = 0;

  /** The placeholder of `original` found as `label`, numbered on first sight. */
  placeholderFor(label: string, original: string): string {
    const key = `${label}\u0000${original}`;
    const known = this.#placeholderByOriginal.get(key);
    if (known) return known;
    const count = (this.#countByLabel.get(label) ?? 0) + 1;
    this.#countByLabel.set(label, count);
    const placeholder = `[${label}_${count}]`;
    this.#placeholderByOriginal.set(key, placeholder);
    this.#originalByPlaceholder.set(placeholder, original);
    this.#longest = Math.max(this.#longest, placeholder.length);
    return placeholder;
  }

  get size(): number {
    return this.#originalByPlaceholder.size;
  }

  /** A whole answer with every placeholder of this call turned back into its original; others are left as written. */
  restore(text: string): string {
    if (this.size === 0) return text;
    return text.replace(
      PLACEHOLDER,
      (placeholder) => this.#originalByPlaceholder.get(placeholder) ?? placeholder,
    );
  }

  /**
   * A restorer for a stream of deltas: a placeholder split across deltas is held back (at most the longest
   * placeholder's length) until it is whole, so what is emitted is always restored.
   */
  restorer(): { push(delta: string): string; end(): string } {
    let held = "";
    return {
      push: (delta) => {
        const text = held + delta;
        const open = text.lastIndexOf("[");
        const tail = open === -1 ? "" : text.slice(open);
        const mayBePlaceholder =
          tail !== "" && tail.length < this.#longest && PARTIAL_PLACEHOLDER.test(tail) && this.size > 0;
        held = mayBePlaceholder ? tail : "";
        return this.restore(mayBePlaceholder ? text.slice(0, open) : text);
      },
      end: () => {
        const rest = held;
        held = "";
        return this.restore(rest);
      },
    };
  }

  toJSON(): string {
    return "[pseudonyms]";
  }

  toString(): string {
    return "[pseudonyms]";
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return "[pseudonyms]";
  }
}

/**
 * The worst inputs for the guardrail checks (lib/guardrails/checks): for each check, strings that start a candidate
 * everywhere and almost finish it, built to `size` characters. A scan that backtracked or rescanned would take
 * quadratic time on its own inputs.
 */
const fill = (unit: string, size: number, head = "", tail = "") =>
  head + unit.repeat(Math.max(1, Math.ceil((size - head.length - tail.length) / unit.length))) + tail;

export function worstGuardrailInputs(size: number): Record<string, string[]> {
  return {
    pii: [
      fill("4 ", size),
      fill("4-", size),
      fill("1.", size),
      fill("+1 ", size),
      fill("(4", size),
      fill("a@", size),
      fill("a.", size, "a@"),
      fill("a", size, "", "@"),
      fill("1:", size),
      fill(":", size),
      fill("DE89 ", size),
      fill("AB 12 ", size),
      fill("12345678 ", size),
      fill("RSSMRA", size),
      fill("a://", size, "", ":x@y.z"),
    ],
    injection: [
      fill("ignore ", size),
      fill("do anything ", size),
      fill("\u200b", size),
      fill("<|im_start|>", size),
      fill("忽略", size),
      fill("ai you ", size),
      fill("İ", size, "ignore "),
    ],
    deny_list: [fill("a ", size), fill("a b ", size), fill("é ", size)],
  };
}

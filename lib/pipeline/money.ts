import Big from "big.js";

/** Budget counters count nano-dollars as whole numbers; rounding up, so a reservation never falls short. */
export const toNano = (usd: string): number =>
  Number(new Big(usd).times(1e9).round(0, Big.roundUp).toFixed(0));
export const fromNano = (nano: number): string => new Big(nano).div(1e9).toFixed();
/** $1.25, $0.0042: as many decimals as the amount needs, at least 2, at most 6. */
export function usd(amount: string | number): string {
  const n = new Big(typeof amount === "number" ? fromNano(amount) : amount);
  const text = n.toFixed(6).replace(/0+$/, "");
  const [whole, frac = ""] = text.split(".");
  return `$${whole}.${frac.padEnd(2, "0")}`;
}

import Big from "big.js";
import { formatMoney } from "@/lib/core/format/money";

/** Budget counters count nano-dollars as whole numbers; rounding up, so a reservation never falls short. */
export const toNano = (usd: string): number => {
  let nano = nanoOf.get(usd);
  if (nano === undefined) {
    nano = Number(new Big(usd).times(1e9).round(0, Big.roundUp).toFixed(0));
    // Limits and prices repeat on every call: remembered, within a bound.
    if (nanoOf.size >= 4096) nanoOf.clear();
    nanoOf.set(usd, nano);
  }
  return nano;
};
const nanoOf = new Map<string, number>();
export const fromNano = (nano: number): string => new Big(nano).div(1e9).toFixed();
/** An amount (USD, or nano-dollars as a number) in a message, as every page shows money: lib/core/format/money.ts. */
export const usd = (amount: string | number): string =>
  formatMoney(typeof amount === "number" ? fromNano(amount) : amount);

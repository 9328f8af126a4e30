// Pure helpers for the drawer's Approve / Deny card.

/** Whole seconds left until `deadline` (both epoch ms), rounded up so "1 s" shows until the very end; never < 0. */
export const secondsLeft = (deadline: number, now: number): number =>
  Math.max(0, Math.ceil((deadline - now) / 1000));

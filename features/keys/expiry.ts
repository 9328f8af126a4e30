// How the keys page reads and shows a key's expiry. Pure and browser-safe.

const DAY_MS = 86_400_000;

/** A key's expiry at `now`: none, passed, or the whole days left (1 on its last day). */
export type ExpiryState = { state: "never" } | { state: "expired" } | { state: "expires"; days: number };

export function expiryState(expiresAt: string | Date | null, now: number): ExpiryState {
  if (expiresAt === null) return { state: "never" };
  const left = new Date(expiresAt).getTime() - now;
  if (left <= 0) return { state: "expired" };
  return { state: "expires", days: Math.ceil(left / DAY_MS) };
}

/**
 * A number of days or hours typed by an admin: null when empty, NaN when it is no number (the form says so; a
 * fraction or a number out of range goes to the server, which names the field).
 */
export function parseCount(text: string): number | null {
  const trimmed = text.trim();
  return trimmed ? Number(trimmed) : null;
}

/** The instant `days` whole days from `now`, as the PATCH route takes it. */
export const daysFromNow = (days: number, now: number) => new Date(now + days * DAY_MS).toISOString();

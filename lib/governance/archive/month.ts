// UTC calendar months and the UUIDv7 ids that fall in them (a v7 id starts with its millisecond timestamp).

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const isMonth = (text: string): boolean => MONTH.test(text);

/** The first instant of a "YYYY-MM" month, UTC. */
export function monthStart(month: string): Date {
  const m = MONTH.exec(month);
  if (!m) throw new Error(`not a month (YYYY-MM): "${month}"`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

/** The first instant of the next month, UTC. */
export function monthEnd(month: string): Date {
  const start = monthStart(month);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

export const nextMonth = (month: string): string => monthOf(monthEnd(month));

/** The smallest UUID whose first 48 bits are `at`'s milliseconds: ids of a month are in [lowest(start), lowest(end)). */
export function lowestUuidAt(at: Date): string {
  const hex = at.getTime().toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The month a UUIDv7 was minted in; null for an id of another version. */
export function monthOfUuidV7(id: string): string | null {
  if (id[14] !== "7") return null;
  const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return Number.isFinite(ms) ? monthOf(new Date(ms)) : null;
}

/** The fixed windows counters are kept in (UTC), and how long until each one ends. */
export function windowsAt(now: number) {
  const minute = Math.floor(now / 60_000);
  // The day and the month change only at a minute's start: worked out once a minute, not on every call.
  if (cached?.minute !== minute) cached = calendarOf(minute);
  const c = cached;
  const secondsUntil = (t: number) => Math.max(1, Math.ceil((t - now) / 1000));
  return {
    minute,
    secondsToNextMinute: secondsUntil((minute + 1) * 60_000),
    day: c.day,
    secondsToNextDay: secondsUntil(c.nextDay),
    month: c.month,
    secondsToNextMonth: secondsUntil(c.nextMonth),
  };
}

type Calendar = { minute: number; day: string; month: string; nextDay: number; nextMonth: number };
let cached: Calendar | undefined;

function calendarOf(minute: number): Calendar {
  const d = new Date(minute * 60_000);
  const iso = d.toISOString();
  return {
    minute,
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    nextDay: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1),
    nextMonth: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

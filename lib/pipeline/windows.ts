/** The fixed windows counters are kept in (UTC), and how long until each one ends. */
export function windowsAt(now: number) {
  const d = new Date(now);
  const minute = Math.floor(now / 60_000);
  const nextDay = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const secondsUntil = (t: number) => Math.max(1, Math.ceil((t - now) / 1000));
  return {
    minute,
    secondsToNextMinute: secondsUntil((minute + 1) * 60_000),
    day: d.toISOString().slice(0, 10),
    secondsToNextDay: secondsUntil(nextDay),
    month: d.toISOString().slice(0, 7),
    secondsToNextMonth: secondsUntil(nextMonth),
  };
}

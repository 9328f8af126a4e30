import type { TimePreset } from "@/features/admin-tables/contracts";

export const ALL_PRESETS: TimePreset[] = ["1h", "24h", "7d", "30d", "month"];

const HOUR = 3_600_000;
const SPAN: Record<Exclude<TimePreset, "month">, number> = {
  "1h": HOUR,
  "24h": 24 * HOUR,
  "7d": 7 * 24 * HOUR,
  "30d": 30 * 24 * HOUR,
};

/** An instant as the URL carries it: ISO in UTC, to the second (the API reads any ISO time with a zone). */
export const isoInstant = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * A preset as the filter values it sets: `.from` the start of the range (whole minutes, so a link reads
 * cleanly), `.to` cleared so the range stays open to now. "This month" starts at the viewer's local midnight
 * on the 1st.
 */
export function presetRange(preset: TimePreset, now: Date): { from: string; to: "" } {
  if (preset === "month") return { from: isoInstant(new Date(now.getFullYear(), now.getMonth(), 1)), to: "" };
  const start = new Date(now.getTime() - SPAN[preset]);
  start.setSeconds(0, 0);
  return { from: isoInstant(start), to: "" };
}

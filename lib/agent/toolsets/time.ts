import { z } from "zod";
import { defineTool, StaticToolSet } from "../tool";

function checkZone(zone: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    throw new Error(`unknown time zone "${zone}"; use an IANA name like Europe/Paris or America/New_York`);
  }
}

/** The wall-clock time of an instant in a zone, as YYYY-MM-DD HH:mm:ss plus the zone's offset name. */
export function wallClock(instant: Date, zone: string): { local: string; offset: string; weekday: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
      timeZoneName: "longOffset",
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return {
    local: `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`,
    offset: parts.timeZoneName === "GMT" ? "UTC+00:00" : String(parts.timeZoneName).replace("GMT", "UTC"),
    weekday: String(parts.weekday),
  };
}

/** Parses "YYYY-MM-DD HH:mm" (or ISO without offset) as a wall-clock time in `zone`. */
export function fromWallClock(text: string, zone: string): Date {
  const m = text.trim().match(/^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/);
  if (!m) throw new Error(`time "${text}" must look like 2026-03-01 14:30`);
  const [y, mo, d, h, mi, s] = m.slice(1).map((part) => Number(part ?? 0)) as number[];
  const asUtc = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  // The zone's offset at that moment, found by reading the wall clock of the UTC guess (twice for DST edges).
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const local = wallClock(new Date(guess), zone).local;
    const seen = Date.parse(`${local.replace(" ", "T")}Z`);
    guess += asUtc - seen;
  }
  return new Date(guess);
}

export function timeToolSet(now: () => Date = () => new Date()): StaticToolSet {
  const currentTime = defineTool({
    name: "current_time",
    description: "The current date and time, in UTC and in a given time zone.",
    category: "time",
    keywords: ["time", "date", "today", "now", "clock"],
    parameters: z.object({
      timeZone: z.string().optional().describe("IANA time zone, e.g. Asia/Shanghai; UTC when omitted"),
    }),
    execute: async ({ timeZone }) => {
      const zone = checkZone(timeZone ?? "UTC");
      const at = now();
      return { utc: at.toISOString(), timeZone: zone, ...wallClock(at, zone) };
    },
  });
  const convertTime = defineTool({
    name: "convert_time",
    description: "Convert a wall-clock time from one time zone to another.",
    category: "time",
    keywords: ["convert", "timezone", "time zone"],
    parameters: z.object({
      time: z.string().describe("The time in the source zone, as YYYY-MM-DD HH:mm"),
      from: z.string().describe("IANA time zone of `time`, e.g. Europe/London"),
      to: z.string().describe("IANA time zone to convert to, e.g. America/Los_Angeles"),
    }),
    execute: async ({ time, from, to }) => {
      const instant = fromWallClock(time, checkZone(from));
      return {
        utc: instant.toISOString(),
        from: { timeZone: from, ...wallClock(instant, from) },
        to: { timeZone: checkZone(to), ...wallClock(instant, to) },
      };
    },
  });
  return new StaticToolSet("time", [currentTime, convertTime]);
}

import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

export const median = (xs: number[]) => quantile(xs, 0.5);
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}

/** Replaces (or appends) this benchmark's section of BENCHMARKS.md, between its markers. */
export function writeSection(name: string, body: string): void {
  const file = "BENCHMARKS.md";
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text =
      "# Benchmarks\n\nEach section is written by its benchmark (`npm run bench:<name>`); numbers are from one run on the machine named.\n";
  }
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const section = `${start}\n${body.trim()}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  text = re.test(text) ? text.replace(re, section) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
}

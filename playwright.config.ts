import { defineConfig } from "@playwright/test";

const port = process.env.E2E_PORT ?? "3100";
/** Debian's Chromium, headless, with none of the background connections this closed network refuses. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** The fake OpenAI server the e2e server starts; tests script it through /__control/enqueue. */
export const FAKE_UPSTREAM = `http://127.0.0.1:${process.env.E2E_FAKE_PORT ?? 3191}`;
export const FAKE_ANTHROPIC = `http://127.0.0.1:${process.env.E2E_ANTHROPIC_PORT ?? 3193}`;
/** The e2e server's switch of the fault proxy between the app and PostgreSQL (outage.spec.ts). */
export const FAULT_CONTROL = `http://127.0.0.1:${process.env.E2E_FAULT_PORT ?? 3194}/__control/fault`;

/** The e2e server's database: PostgreSQL when the run has one (scripts/e2e-server.ts), else PGlite. */
const ON_POSTGRES = Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL);
/** The outage specs: the drawer during a database outage, and the production server and worker under load. */
const OUTAGE_SPECS = ["outage.spec.ts", "outages-app.spec.ts"];
const SHOTS_IGNORED = process.env.E2E_SCREENSHOTS === "1" ? [] : ["screenshots.spec.ts"];

export default defineConfig({
  testDir: "tests/e2e",
  // The docs' screenshots (52 views, several minutes) are taken on request: E2E_SCREENSHOTS=1 npm run test:e2e.
  // The feature specs' own shots (administration, charts-nav…) render into test-results/screens on every run.
  testIgnore: SHOTS_IGNORED,
  // The database outage runs after every other spec: the suite shares one server and one database, and a spec whose
  // requests landed in the outage window would fail for it.
  // It needs a connection to take away: a run on PostgreSQL (CI's) has it; on embedded PGlite there is none, and
  // the spec is not part of the run.
  projects: [
    { name: "app", testIgnore: [...SHOTS_IGNORED, ...OUTAGE_SPECS] },
    ...(ON_POSTGRES ? [{ name: "outages", testMatch: OUTAGE_SPECS, dependencies: ["app"] }] : []),
  ],
  // One server and one database for the suite; tests sign in as different users, so they run in order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "reports/playwright.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    },
  },
  webServer: {
    command: "node --conditions=react-server --import tsx scripts/e2e-server.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});

// Serves the production build for Playwright on its own database: a fresh Postgres database when the run has
// one (TEST_DATABASE_URL or DATABASE_URL), else a throwaway PGlite directory. Both are removed on exit.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";

const port = process.env.E2E_PORT ?? "3100";
const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const env = {
  ...process.env,
  PORT: port,
  AUTH_SECRET: "e2e-only-secret-not-for-production-0123456789",
  NEXT_TELEMETRY_DISABLED: "1",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
};

let cleanup = async () => {};
if (adminUrl) {
  const name = `tollgate_e2e_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  cleanup = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
} else {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-e2e-"));
  delete env.DATABASE_URL;
  env.PGLITE_DIR = dir;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}

const server = spawn("npx", ["next", "start", "-p", port], { env, stdio: "inherit" });
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  server.kill("SIGTERM");
  await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve()));
  await cleanup().catch((error) => console.error(`e2e cleanup failed: ${error.message}`));
  process.exit(code);
}
server.on("exit", (code) => stop(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(0));

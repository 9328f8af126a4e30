// CI's check of what the container image runs (no container runtime here): Next's standalone output is built (with
// TOLLGATE_STANDALONE=1, as the Dockerfile builds it), its server is completed as the Dockerfile completes it (static files and public/ copied in), started with
// `node .next/standalone/server.js` on an embedded database of its own, and must answer /api/health/live and
// /api/health/ready within a minute; then it is stopped with SIGTERM and must exit.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

// The standalone build is its own (`npm run build` makes the one `next start` serves): built here as the
// Dockerfile builds it.
const build = spawnSync("npx", ["next", "build"], {
  stdio: "inherit",
  env: { ...process.env, TOLLGATE_STANDALONE: "1", NEXT_TELEMETRY_DISABLED: "1" },
});
if (build.status !== 0) {
  console.error("the standalone build failed");
  process.exit(1);
}
const root = ".next/standalone";
if (!existsSync(path.join(root, "server.js"))) {
  console.error(
    "no .next/standalone/server.js: run `next build` first (next.config.mjs sets output: standalone)",
  );
  process.exit(1);
}
// As the Dockerfile does: the standalone output leaves the static files and public/ to the deployment.
cpSync(".next/static", path.join(root, ".next/static"), { recursive: true });
if (existsSync("public")) cpSync("public", path.join(root, "public"), { recursive: true });

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const work = mkdtempSync(path.join(tmpdir(), "tollgate-standalone-"));
const env = {
  ...process.env,
  PORT: String(port),
  HOSTNAME: "127.0.0.1",
  NODE_ENV: "production",
  PGLITE_DIR: path.join(work, "pglite"),
  AUTH_SECRET: "standalone-check-only-not-a-secret-0123456789",
  SEED_SAMPLE_TURNS: "0",
  LOG_LEVEL: "warn",
};
delete env.DATABASE_URL;
delete env.GATEWAY_CONFIG;
const server = spawn(process.execPath, ["server.js"], {
  cwd: root,
  env,
  stdio: ["ignore", "inherit", "inherit"],
});
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let failure = "did not answer /api/health/ready in 60 s";
for (let i = 0; i < 240 && server.exitCode === null; i++) {
  try {
    const live = await fetch(`${base}/api/health/live`);
    const ready = await fetch(`${base}/api/health/ready`);
    if (live.status === 200 && ready.status === 200) {
      const body = await ready.json();
      failure = body.ready === true ? "" : `readiness said ${JSON.stringify(body)}`;
      break;
    }
  } catch {}
  await sleep(250);
}
if (server.exitCode !== null) failure = `exited with ${server.exitCode} before it was ready`;
server.kill("SIGTERM");
const code = await Promise.race([
  new Promise((resolve) =>
    server.exitCode !== null ? resolve(server.exitCode) : server.once("exit", resolve),
  ),
  sleep(15_000).then(() => "still running"),
]);
if (code === "still running") {
  server.kill("SIGKILL");
  failure ||= "did not exit within 15 s of SIGTERM";
}
rmSync(work, { recursive: true, force: true });
if (failure) {
  console.error(`standalone server: ${failure}`);
  process.exit(1);
}
console.log(`standalone server: live and ready on ${base}, stopped with SIGTERM (exit ${code})`);

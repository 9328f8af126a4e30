import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

/** Starts the production server with extra environment and waits for it to exit; returns its code and stderr. */
async function startAndExit(env: Record<string, string>) {
  const child = spawn("npx", ["next", "start", "-p", "3399"], {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PGLITE_DIR: "memory", ...env },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, lines: stderr.trim().split("\n") };
}

test("the production server refuses to start on an unreachable DATABASE_URL, with one line that says why", async () => {
  const { code, lines } = await startAndExit({
    DATABASE_URL: "postgres://tollgate:secret@127.0.0.1:1/tollgate",
  });
  expect(code).toBe(1);
  expect(lines).toEqual([
    "Tollgate cannot start: cannot reach the database at postgres://tollgate:***@127.0.0.1:1/tollgate: connect ECONNREFUSED 127.0.0.1:1",
  ]);
});

test("the production server refuses a bad gateway config, naming the file and the field", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-gw-"));
  const file = path.join(dir, "gateway.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      providers: { main: { type: "openai", baseUrl: "ftp://x" } },
      models: { m: { candidates: [{ provider: "main", model: "x" }] } },
    }),
  );
  const { code, lines } = await startAndExit({ GATEWAY_CONFIG: file, DATABASE_URL: "" });
  expect(code).toBe(1);
  expect(lines).toEqual([
    `Tollgate cannot start: ${file}: providers.main.baseUrl must match pattern "^https?://"`,
  ]);
});

// One of the project's CLI commands (scripts/<name>.ts) run as `npm run` would, in a child process: its exit code
// and output, whatever the code. The environment adds to the test's own (an embedded database in memory unless
// DATABASE_URL or PGLITE_DIR says otherwise, no demo, no log lines).
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export type CliResult = { code: number; stdout: string; stderr: string };

export function runCli(script: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return run("npx", ["tsx", "--conditions=react-server", `scripts/${script}.ts`, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: "",
      PGLITE_DIR: "memory",
      SEED_DEMO: "0",
      LOG_LEVEL: "silent",
      ...env,
    },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

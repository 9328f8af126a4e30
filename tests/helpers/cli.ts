// One of the project's CLI commands (scripts/<name>.ts) run as `npm run` would, in a child process: its exit code
// and output, whatever the code. The environment adds to the test's own (an embedded database in memory unless
// DATABASE_URL or PGLITE_DIR says otherwise, no demo, no log lines).
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export type CliResult = { code: number; stdout: string; stderr: string };

// Node 24's V8 now and then aborts a process at start-up under CI's load ("# Fatal error in , line 0 / Check failed:
// jit_page.has_value()", exit 133; nodejs/node#60755 reports the family). That is the runtime failing before our
// code decides anything, so such a run is tried again, twice at most; any other failure is returned as it is.
const V8_FATAL = /^# Fatal error in .*\n# Check failed:/m;

export async function runCli(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  let result = await runOnce(script, args, env);
  for (let retry = 0; retry < 2 && result.code !== 0 && V8_FATAL.test(result.stderr); retry++) {
    result = await runOnce(script, args, env);
  }
  return result;
}

function runOnce(script: string, args: string[], env: Record<string, string>): Promise<CliResult> {
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

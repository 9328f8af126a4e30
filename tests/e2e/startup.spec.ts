import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";

test("the production server refuses to start on an unreachable DATABASE_URL, with one line that says why", async () => {
  const child = spawn("npx", ["next", "start", "-p", "3399"], {
    env: {
      ...process.env,
      DATABASE_URL: "postgres://tollgate:secret@127.0.0.1:1/tollgate",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code).toBe(1);
  expect(stderr.trim().split("\n")).toEqual([
    "Tollgate cannot start: cannot reach the database at postgres://tollgate:***@127.0.0.1:1/tollgate: connect ECONNREFUSED 127.0.0.1:1",
  ]);
});

/**
 * Creates the first platform super admin for a real deployment:
 *   printf '%s\n' 'a long password' | npm run create-admin -- --email ops@example.com --name "Ops"
 * The password comes from ADMIN_PASSWORD or the first line of standard input, never from the command line
 * (where it would stay in the shell history and the process list).
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { migrateDatabase } from "@/db/migrate";
import { createSuperAdmin } from "@/lib/auth/admin-users";
import { runCli } from "./cli";

const { values } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" } } });

async function readPassword(): Promise<string> {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  if (process.stdin.isTTY) process.stderr.write("Password for the super admin: ");
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return "";
}

await runCli(async (handle) => {
  await migrateDatabase(handle);
  const password = await readPassword();
  const result = await createSuperAdmin(handle.db, {
    email: values.email ?? "",
    name: values.name ?? values.email?.split("@")[0] ?? "",
    password,
  });
  process.stdout.write(
    `${result.created ? "Created" : "Promoted and reset"} super admin ${values.email} (${result.userId})\n`,
  );
});

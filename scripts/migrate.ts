/** Applies migrations (and the demo seed where it is enabled: SEED_DEMO=1, or unset on the embedded database) to DATABASE_URL or the embedded database. */
import { migrationStatus, prepareDatabase } from "@/db/migrate";
import { demoPreparation } from "@/features/demo/server";
import { runCli } from "./cli";

await runCli(async (handle) => {
  const result = await prepareDatabase(handle, { afterMigrations: demoPreparation() });
  const seeded = result?.seeded ?? false;
  const status = await migrationStatus(handle);
  process.stdout.write(
    `${handle.label}: ${status.applied}/${status.expected} migrations applied (latest ${status.latest})${seeded ? ", demo data seeded" : ""}\n`,
  );
});

/**
 * Fills the admin pages of a new install with a realistic synthetic history (ledger, audit trail, rollups):
 *   npm run sample-history -- [--turns 5000] [--days 30] [--seed 1]
 *   npm run sample-history -- --reset               removes every row marked sample (and its rollup share)
 *   npm run sample-history -- --reset --turns 5000  replaces the sample history with a new one
 * Sample turns have no conversation and their audit payloads say "sample": true; real rows are never touched.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { prepareDatabase } from "@/db/migrate";
import { demoFromEnv, seedDemoData } from "@/features/demo/server";
import {
  deleteSampleHistory,
  generateSampleHistory,
  sampleTenants,
} from "@/features/demo/server/sample-data";
import { runCli } from "./cli";

const options = z.object({
  turns: z.coerce.number().int().min(1).max(10_000_000).default(5_000),
  days: z.coerce.number().int().min(1).max(3_650).default(30),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .default(1),
});
const count = (n: number) => n.toLocaleString("en-US");

await runCli(async (handle) => {
  // Parsed inside runCli so a bad flag prints one line, like every other failure.
  const { values } = parseArgs({
    options: {
      turns: { type: "string" },
      days: { type: "string" },
      seed: { type: "string" },
      reset: { type: "boolean", default: false },
    },
  });
  const opts = options.parse({ turns: values.turns, days: values.days, seed: values.seed });
  // Migrations first, and the demo tenants into an empty database, exactly as the app does when it starts,
  // so a fresh install has tenants and members to attribute the history to.
  await prepareDatabase(handle, {
    afterMigrations: async (h) => {
      if (demoFromEnv()) await seedDemoData(h, { sampleTurns: 0 });
    },
  });
  if (values.reset) {
    const removed = await deleteSampleHistory(handle.db);
    process.stdout.write(
      `Removed ${count(removed.turns)} sample turns and ${count(removed.auditEvents)} audit events; ` +
        `${count(removed.rollupRows)} rollup rows left empty were deleted (${handle.label}).\n`,
    );
    if (values.turns === undefined) return;
  }
  const tenants = await sampleTenants(handle.db);
  if (!tenants.some((t) => t.userIds.length > 0))
    throw new Error(
      "no enabled tenant has members to attribute the history to; add a tenant and its users first",
    );
  const started = performance.now();
  const result = await generateSampleHistory(handle.db, handle.kind, { ...opts, tenants });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `Inserted ${count(result.turns)} sample turns and ${count(result.auditEvents)} audit events, added to ` +
      `${count(result.rollupRows)} daily rollup rows, over the last ${opts.days} days for ${tenants.length} tenants ` +
      `(seed ${opts.seed}) into ${handle.label} in ${seconds} s. Remove them with: npm run sample-history -- --reset\n`,
  );
});

import "server-only";
import { type DatabaseHandle, databaseOptionsFromEnv } from "@/db/client";
import { seedDemo, seedDemoOrders } from "./seed";

export {
  demoAccountsExist,
  demoHintShown,
  resetDemoHint,
  warnIfDemoPasswordsRemain,
} from "./accounts";

export type DemoOptions = { sampleTurns: number };

/**
 * Whether this deployment seeds the demo, from `SEED_DEMO` and the database the environment names:
 * `SEED_DEMO=0` never; `SEED_DEMO=1` always; unset, only on the embedded database (PGlite, no DATABASE_URL), so
 * the Quick start has its demo accounts and a PostgreSQL deployment (production or not) never has them by accident.
 */
export function demoEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.SEED_DEMO?.trim() ?? "";
  if (flag === "0") return false;
  if (flag === "1") return true;
  if (flag !== "") throw new Error(`SEED_DEMO must be 0 or 1 (got ${JSON.stringify(flag.slice(0, 20))})`);
  return databaseOptionsFromEnv(env).kind === "pglite";
}

/** The demo this deployment seeds (see `demoEnabled`): accounts, orders and `SEED_SAMPLE_TURNS` of sample usage. */
export function demoFromEnv(env: NodeJS.ProcessEnv = process.env): DemoOptions | null {
  if (!demoEnabled(env)) return null;
  return { sampleTurns: Number(env.SEED_SAMPLE_TURNS ?? 2000) };
}

/**
 * Seeds the demo into an empty database: the demo tenants and accounts, their orders, and a month of sample usage
 * and Acme's demo prompts, so the admin pages are full from the first visit. Runs after the migrations, under their
 * lock.
 */
export async function seedDemoData(
  handle: DatabaseHandle,
  options: DemoOptions,
): Promise<{ seeded: boolean }> {
  const seeded = await seedDemo(handle.db);
  await seedDemoOrders(handle.db);
  if (seeded && options.sampleTurns > 0) {
    const { generateSampleHistory } = await import("./sample-data");
    await generateSampleHistory(handle.db, handle.kind, { turns: options.sampleTurns, seed: 7 });
  }
  if (seeded) {
    const { seedDemoPrompts } = await import("./sample-prompts");
    await seedDemoPrompts(handle.db);
  }
  return { seeded };
}

/** The preparation step start-up hands the database: the demo seed where `demoEnabled`, else nothing. */
export function demoPreparation(env: NodeJS.ProcessEnv = process.env) {
  const demo = demoFromEnv(env);
  return async (handle: DatabaseHandle) => (demo ? seedDemoData(handle, demo) : { seeded: false });
}
export * from "./orders-tools";

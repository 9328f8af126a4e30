import "server-only";
import type { DatabaseHandle } from "@/db";
import { seedDemo, seedDemoOrders } from "./seed";

export type DemoOptions = { sampleTurns: number };

/** The demo, unless `SEED_DEMO=0`: accounts, orders and (on a fresh install) `SEED_SAMPLE_TURNS` of sample usage. */
export function demoFromEnv(env: NodeJS.ProcessEnv = process.env): DemoOptions | null {
  if (env.SEED_DEMO === "0") return null;
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

/** The preparation step start-up hands the database: the demo seed, or nothing with `SEED_DEMO=0`. */
export function demoPreparation(env: NodeJS.ProcessEnv = process.env) {
  const demo = demoFromEnv(env);
  return async (handle: DatabaseHandle) => (demo ? seedDemoData(handle, demo) : { seeded: false });
}

import path from "node:path";
import postgres from "postgres";

/**
 * The database of a server a test spawns: a fresh PostgreSQL database `<prefix>_<pid>` when the run has one
 * (`adminUrl`), else an embedded PGlite directory under `work`. Sets `DATABASE_URL` or `PGLITE_DIR` in `env`;
 * the returned function drops the PostgreSQL database.
 */
export async function serverDatabase(
  env: NodeJS.ProcessEnv,
  { adminUrl, prefix, work }: { adminUrl: string; prefix: string; work: string },
): Promise<() => Promise<void>> {
  if (!adminUrl) {
    delete env.DATABASE_URL;
    env.PGLITE_DIR = path.join(work, "pglite");
    return async () => {};
  }
  const name = `${prefix}_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  return async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
}

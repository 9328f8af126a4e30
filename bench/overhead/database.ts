// The run's own database: created fresh on BENCH_DATABASE_URL's server, migrated, demo-seeded, dropped at the end.
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { prepareDatabase } from "@/db/migrate";
import { appUser, tenant } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { seedDemoData } from "@/lib/demo";

type Handle = Awaited<ReturnType<typeof openDatabase>>;
/** `/v1` turns in the ledger by status, and their `request` audit events. */
export type LedgerCount = { total: number; byStatus: Record<string, number>; requestEvents: number };

export class BenchDatabase {
  readonly name = `tollgate_bench_${process.pid}`;
  readonly url: string;
  private created = false;

  constructor(private readonly adminUrl: string) {
    const url = new URL(adminUrl);
    url.pathname = `/${this.name}`;
    this.url = url.toString();
  }

  /** Creates, migrates and seeds it (demo tenants, no sample history); returns a handle and a tenant API key. */
  async create(): Promise<{ handle: Handle; secret: string }> {
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    this.created = true;
    await admin.unsafe(`create database ${this.name}`);
    await admin.end();
    const handle = await openDatabase({ kind: "postgres", url: this.url, max: 2 });
    await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
    const db = handle.db;
    const [acme] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "acme"));
    const [user] = await db
      .select({ id: appUser.id })
      .from(appUser)
      .where(eq(appUser.email, "admin@acme.test"));
    const { secret } = await createApiKey(db, { tenantId: acme!.id, name: "benchmark", createdBy: user!.id });
    return { handle, secret };
  }

  async drop(): Promise<void> {
    if (!this.created) return;
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${this.name} with (force)`).catch((e) => say(String(e)));
    await admin.end();
  }

  async serverVersion(): Promise<string> {
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    try {
      const [r] = await admin<{ v: string }[]>`select split_part(version(), ' on ', 1) as v`;
      return r?.v ?? "";
    } finally {
      await admin.end();
    }
  }
}

export async function countLedger(handle: Handle): Promise<LedgerCount> {
  const db = handle.db;
  const rows = await db.execute<{ status: string; n: number }>(
    sql`select status, count(*)::int as n from sys_agent_turn where source = 'api' group by status`,
  );
  const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as {
    status: string;
    n: number;
  }[];
  const audit = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from sys_agent_audit a join sys_agent_turn t on t.id = a.turn_id where t.source = 'api' and a.type = 'request'`,
  );
  const a = (Array.isArray(audit) ? audit : (audit as { rows: unknown[] }).rows) as { n: number }[];
  return {
    total: list.reduce((s, r) => s + r.n, 0),
    byStatus: Object.fromEntries(list.map((r) => [r.status, r.n])),
    requestEvents: a[0]?.n ?? 0,
  };
}

const say = (line: string) => process.stderr.write(`${line}\n`);

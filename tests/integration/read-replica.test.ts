// The admin pages on a real streaming replica (DATABASE_READ_URL): `.ci/run` makes one with pg_basebackup on a
// second cluster and names it in TEST_READ_REPLICA_URL (a database created on the primary appears there). The
// ledger's pages read from it; a replica that falls behind is marked "as of", then left for the primary; a replica
// that goes away is left for the primary at the first failed read (the read is answered from the primary), and used
// again once it answers.
import { randomUUID } from "node:crypto";
import net from "node:net";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db";
import { type FallbackReason, openReadRouter, type ReadRouter } from "@/db/read-replica";
import { sysAgentTurn, tenant } from "@/db/schema";
import type { PageQuery, ProviderContext } from "@/features/admin-tables/contracts";
import { PROVIDERS, readFromReplica } from "@/features/admin-tables/server";
import { startFaultProxy } from "../fakes/fault-proxy";
import { createMigratedDatabase, postgresAdminUrl, type TestDatabase, withDatabase } from "../helpers/db";

const replicaAdminUrl = process.env.TEST_READ_REPLICA_URL ?? "";

const query: PageQuery = {
  filters: {},
  segment: null,
  sort: { field: "startedAt", direction: "desc" },
  cursor: null,
  limit: 50,
};

/** A TCP proxy in front of the replica, which the test can take away (connections cut, new ones refused). */
class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async start(port = 0) {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }
  async stop() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}

const waitFor = async (what: string, ok: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe.skipIf(!replicaAdminUrl || !postgresAdminUrl)("the admin pages on a read replica", () => {
  let primary: TestDatabase;
  let replicaAdmin: postgres.Sql;
  let replicaDb: postgres.Sql;
  let proxy: TcpProxy;
  let router: ReadRouter;
  const changes: { usable: boolean; reason?: FallbackReason }[] = [];
  const tenantId = randomUUID();
  const ctx: ProviderContext = { tenantId, superAdmin: false };
  const turns = () => PROVIDERS.agentTurns!({ listTools: () => [], reads: async () => router });

  const addTurn = async () => {
    const id = randomUUID();
    await primary.handle.db.insert(sysAgentTurn).values({
      id,
      tenantId,
      source: "api",
      requestedModel: "m",
      status: "success",
    });
    return id;
  };
  const rowIds = async () => (await turns().rows(ctx, query)).rows.map((r) => r.id);

  beforeAll(async () => {
    primary = await createMigratedDatabase("postgres");
    const name = new URL(primary.url!).pathname.slice(1);
    replicaAdmin = postgres(replicaAdminUrl, { max: 1, onnotice: () => {} });
    // The database and its migrations reach the replica through the WAL.
    await waitFor("the test database on the replica", async () => {
      const [row] = await replicaAdmin`select count(*)::int as n from pg_database where datname = ${name}`;
      return row!.n === 1;
    });
    replicaDb = postgres(withDatabase(replicaAdminUrl, name), { max: 1, onnotice: () => {} });
    await waitFor("the migrated tables on the replica", async () => {
      const [row] = await replicaDb`select to_regclass('sys_agent_turn') is not null as ok`;
      return row!.ok === true;
    });
    await primary.handle.db.insert(tenant).values({ id: tenantId, name: "Replica", slug: `r-${tenantId}` });
    const u = new URL(replicaAdminUrl);
    proxy = new TcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    await proxy.start();
    const viaProxy = new URL(withDatabase(replicaAdminUrl, name));
    viaProxy.port = String(proxy.port);
    const handle: DatabaseHandle = primary.handle;
    router = await openReadRouter(
      async () => handle,
      viaProxy.toString(),
      { staleMs: 1_000, maxLagMs: 4_000, checkMs: 0, retryMs: 300, timeoutMs: 1_000 },
      { onChange: (usable, detail) => changes.push({ usable, reason: detail.reason }) },
    );
  }, 60_000);

  afterAll(async () => {
    await replicaAdmin?.unsafe("select pg_wal_replay_resume()").catch(() => undefined);
    await router?.close();
    await proxy?.stop();
    await replicaDb?.end();
    await replicaAdmin?.end();
    await primary?.drop();
  });

  it("reads the ledger's pages from the replica, and a turn it has not replayed yet from the primary", async () => {
    const first = await addTurn();
    await waitFor("the turn on the replica", async () => (await rowIds()).includes(first));
    expect(router.stats()).toMatchObject({ configured: true, usingReplica: true });
    // Caught up: no "as of" (waited for: other tests' writes on the same cluster may hold replay back a moment).
    await waitFor("fresh rows", async () => (await turns().rows(ctx, query)).asOf === undefined);

    // Replay paused: what the primary writes now is not on the replica.
    await replicaAdmin.unsafe("select pg_wal_replay_pause()");
    const second = await addTurn();
    await new Promise((r) => setTimeout(r, 1_300));
    const stale = await turns().rows(ctx, query);
    expect(stale.rows.map((r) => r.id)).toEqual([first]);
    // Behind past DATABASE_READ_STALE_MS: the rows say how old they may be.
    expect(stale.asOf).toBeDefined();
    expect(Date.now() - Date.parse(stale.asOf!)).toBeGreaterThanOrEqual(1_000);
    // The replay page and a row's detail never say "not found" for a turn the replica lacks.
    expect((await turns().detail(ctx, second))?.row.id).toBe(second);
    const replayed = await readFromReplica(
      async () => router,
      async (db) => (await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, second))).at(0) ?? null,
    );
    expect(replayed?.id).toBe(second);

    // Past DATABASE_READ_MAX_LAG_MS: the pages read the primary, and say so once.
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await rowIds()).sort()).toEqual([first, second].sort());
    expect(router.stats()).toMatchObject({ usingReplica: false });
    expect(router.stats().fallbacks.lagging).toBeGreaterThan(0);
    expect(changes.at(-1)).toEqual({ usable: false, reason: "lagging" });

    // Replay resumed: back on the replica, with nothing stale.
    await replicaAdmin.unsafe("select pg_wal_replay_resume()");
    await waitFor(
      "the replica caught up",
      // A read first: the router checks the replica's position when a read asks for it.
      async () => (await rowIds()).length === 2 && router.stats().usingReplica,
    );
    expect(changes.at(-1)).toEqual({ usable: true, reason: undefined });
    await waitFor("fresh rows again", async () => (await turns().rows(ctx, query)).asOf === undefined);
  }, 60_000);

  it("answers from the primary when the replica goes away, and uses it again once it is back", async () => {
    const before = router.stats().fallbacks.unreachable;
    const third = await addTurn();
    await waitFor("the turn on the replica", async () => (await rowIds()).includes(third));
    const port = proxy.port;
    await proxy.stop();
    // The read that meets the gone replica is answered from the primary (the export, the count and the
    // metrics too), not refused.
    expect(await rowIds()).toContain(third);
    expect((await turns().count(ctx, query)).count).toBe(3);
    const exported: unknown[] = [];
    for await (const row of turns().exportRows(ctx, query)) exported.push(row);
    expect(exported).toHaveLength(3);
    expect(router.stats().usingReplica).toBe(false);
    expect(router.stats().fallbacks.unreachable).toBeGreaterThan(before);
    expect(changes.at(-1)).toEqual({ usable: false, reason: "unreachable" });

    await proxy.start(port);
    await waitFor("the replica in use again", async () => {
      await rowIds();
      return router.stats().usingReplica;
    });
    expect(changes.at(-1)).toEqual({ usable: true, reason: undefined });
  }, 60_000);

  it("gives up on a replica that hangs within the database deadlines and answers the read from the primary", async () => {
    const name = new URL(primary.url!).pathname.slice(1);
    const u = new URL(replicaAdminUrl);
    const hung = await startFaultProxy({ host: u.hostname, port: Number(u.port || 5432) });
    const viaHung = new URL(withDatabase(replicaAdminUrl, name));
    viaHung.host = `127.0.0.1:${hung.port}`;
    // Checked once (checkMs large), so the read itself meets the hang, not the router's own position check.
    const hanging = await openReadRouter(
      async () => primary.handle,
      viaHung.toString(),
      { staleMs: 1_000, maxLagMs: 60_000, checkMs: 600_000, retryMs: 60_000, timeoutMs: 1_000 },
      {},
      { statementTimeoutMs: 5_000, silenceMs: 300, probeMs: 300, connectTimeoutMs: 1_000 },
    );
    try {
      const first = await hanging.read(async (from) => ({
        source: from.source,
        rows: await from.db.select().from(tenant),
      }));
      expect(first.source).toBe("replica");
      await hung.set("blackhole");
      const started = Date.now();
      const second = await hanging.read(async (from) => ({
        source: from.source,
        rows: await from.db.select().from(tenant).where(eq(tenant.id, tenantId)),
      }));
      // Dropped by the hung-connection deadline (300 + 300 ms), then answered by the primary.
      expect(second.source).toBe("primary");
      expect(second.rows).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(hanging.stats().usingReplica).toBe(false);
    } finally {
      await hung.set("pass");
      await hanging.close();
      await hung.close();
    }
  }, 30_000);
});

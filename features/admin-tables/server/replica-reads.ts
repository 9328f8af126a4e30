import "server-only";
import { type Database, getDb } from "@/db";
import { isReplicaFailure, type ReadRouter, type ReadSource } from "@/db/read-replica";
import type { PageProvider, Row } from "../contracts";

/**
 * A page's provider reading from the read replica where one is configured (`reads`), else from the primary as
 * before. Each request asks the router where to read (the replica, or the primary while it is unreachable or too
 * far behind); a request the replica fails is answered once more from the primary. Rows say how old they may be
 * (`asOf`) when the replica lags past DATABASE_READ_STALE_MS. An export that fails after its first rows is not
 * started over (its rows are already sent): it breaks off as any export would.
 */
export function onReadReplica(
  reads: (() => Promise<ReadRouter>) | undefined,
  make: (database: () => Promise<Database>) => PageProvider,
): PageProvider {
  if (!reads) return make(getDb);
  const on = (from: ReadSource) => make(async () => from.db);
  const via = async <T>(fn: (provider: PageProvider, from: ReadSource) => Promise<T>) =>
    (await reads()).read((from) => fn(on(from), from));
  const suggests = make(getDb).suggest !== undefined;
  return {
    rows: (ctx, q) =>
      via(async (p, from) => {
        const page = await p.rows(ctx, q);
        return from.asOf ? { ...page, asOf: from.asOf.toISOString() } : page;
      }),
    count: (ctx, q) => via((p) => p.count(ctx, q)),
    metrics: (ctx, q, metrics) => via((p) => p.metrics(ctx, q, metrics)),
    series: (ctx, q, chart) => via((p) => p.series(ctx, q, chart)),
    detail: (ctx, id) => readFromReplica(reads, (db) => make(async () => db).detail(ctx, id)),
    suggest: suggests
      ? (ctx, field, q, limit) => via(async (p) => (await p.suggest!(ctx, field, q, limit)) ?? null)
      : undefined,
    async *exportRows(ctx, q): AsyncIterable<Row> {
      const router = await reads();
      const from = await router.source();
      let sent = false;
      try {
        for await (const row of on(from).exportRows(ctx, q)) {
          sent = true;
          yield row;
        }
      } catch (error) {
        if (sent || from.source !== "replica" || !isReplicaFailure(error)) throw error;
        router.setAside(error);
        yield* on(await router.source()).exportRows(ctx, q);
      }
    },
  };
}

/**
 * One read from the replica where there is one (`reads`), else from the primary; a row the replica does not have
 * yet (`null`: written since its last replayed position, a turn that just ended) is looked up on the primary, so
 * a permalink never says "not found" for a row that exists.
 */
export async function readFromReplica<T>(
  reads: (() => Promise<ReadRouter>) | undefined,
  fn: (db: Database) => Promise<T | null>,
): Promise<T | null> {
  if (!reads) return fn(await getDb());
  const router = await reads();
  return router.read(async (from) => {
    const found = await fn(from.db);
    return found === null && from.source === "replica" ? fn(await router.primaryDb()) : found;
  });
}

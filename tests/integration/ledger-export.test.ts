// GET /api/admin/ledger-export: a tenant admin's own ledger and audit trail of a range of days as one gzip'd JSON
// Lines file (a turn, then its events), another tenant's rows never in it, the range checked, archived months named.
import { gunzipSync } from "node:zlib";
import { sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ledgerArchive } from "@/db/schema";
import { rowsOf } from "@/lib/governance/archive/format";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
const route = await import("@/app/api/admin/ledger-export/route");

const get = (query: string) =>
  route.GET(new Request(`http://app/api/admin/ledger-export?${query}`), { params: Promise.resolve({}) });

describe.each(testDbKinds)("the ledger export on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  const as = async (email: string, slug: string | null) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  const addTurn = async (tenantId: string, at: string, events: number) => {
    const id = uuidv7({ msecs: Date.parse(at) });
    await app.db.execute(sql`insert into sys_agent_turn (id, tenant_id, source, requested_model, started_at, status, cost)
      values (${id}::uuid, ${tenantId}::uuid, 'api', 'gpt-x', ${at}::timestamptz, 'success', '0.0000012300')`);
    for (let seq = 1; seq <= events; seq++)
      await app.db.execute(sql`insert into sys_agent_audit (id, tenant_id, turn_id, seq, type, payload, created_at)
        values (${uuidv7()}::uuid, ${tenantId}::uuid, ${id}::uuid, ${seq}, 'request', ${`{"n": ${seq}.50}`}::jsonb, ${at}::timestamptz)`);
    return id;
  };
  const ids: string[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    ids.push(await addTurn(acme, "2024-03-02T10:00:00.000001Z", 2));
    ids.push(await addTurn(acme, "2024-03-01T10:00:00Z", 1));
    ids.push(await addTurn(acme, "2024-03-31T23:59:59.999999Z", 0));
    await addTurn(acme, "2024-04-01T00:00:00Z", 1); // after the range
    await addTurn(globex, "2024-03-05T00:00:00Z", 1);
    await app.db.insert(ledgerArchive).values({
      tenantId: acme,
      month: "2024-02",
      location: "file:///archive/x/2024-02",
      turns: 1,
      auditEvents: 0,
      bytes: 10,
      manifestSha256: "0".repeat(64),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("streams the active tenant's turns in start order, each followed by its events, as PostgreSQL's JSON", async () => {
    await as("admin@acme.test", "acme");
    const res = await get("from=2024-02-01&to=2024-03-31");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    expect(res.headers.get("content-disposition")).toBe(
      'attachment; filename="ledger-acme-2024-02-01-2024-03-31.jsonl.gz"',
    );
    expect(res.headers.get("x-tollgate-archived-months")).toBe("2024-02");
    const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; row: Record<string, unknown> });
    expect(lines.map((l) => [l.kind, l.row.tenant_id, l.row.id ?? null, l.row.seq ?? null])).toEqual([
      ["turn", acme, ids[1], null],
      ["audit", acme, expect.any(String), 1],
      ["turn", acme, ids[0], null],
      ["audit", acme, expect.any(String), 1],
      ["audit", acme, expect.any(String), 2],
      ["turn", acme, ids[2], null],
    ]);
    const [stored] = rowsOf<{ j: string }>(
      await app.db.execute(
        sql`select row_to_json(t)::text as j from sys_agent_turn t where id = ${ids[0]!}::uuid`,
      ),
    );
    expect(lines[2]!.row).toEqual(JSON.parse(stored!.j));
    expect(lines[2]!.row.cost).toBe(0.00000123);
  });

  it("exports another tenant's rows to no one but its admins", async () => {
    await as("admin@globex.test", "globex");
    const res = await get("from=2024-03-01&to=2024-03-31");
    const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString("utf8")
      .trimEnd()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l).row.tenant_id)).toEqual([globex, globex]);
    expect(res.headers.get("x-tollgate-archived-months")).toBe("");
    await as("member@acme.test", "acme");
    expect((await get("from=2024-03-01&to=2024-03-31")).status).toBe(403);
    await as("root@tollgate.test", null);
    expect((await get("from=2024-03-01&to=2024-03-31")).status).toBe(400);
  });

  it("refuses a reversed range, a range past 366 days and days that are not real with 422", async () => {
    await as("admin@acme.test", "acme");
    for (const query of [
      "from=2024-03-02&to=2024-03-01",
      "from=2024-01-01&to=2025-01-01",
      "from=2024-02-30&to=2024-03-01",
      "from=2024-03-01",
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(422);
      expect((await res.json()).error.code).toBe("validation_failed");
    }
    // 366 days, both ends included, is the most.
    const full = await get("from=2024-01-01&to=2024-12-31");
    expect(full.status).toBe(200);
    expect(
      gunzipSync(Buffer.from(await full.arrayBuffer()))
        .toString("utf8")
        .trimEnd()
        .split("\n"),
    ).toHaveLength(8);
  });
});

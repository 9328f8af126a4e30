// Spend by API key and by end user: the keys list's spend today and this month, and the cost dashboard's charts
// by key and by end user, summed exactly from the ledger's closed rows, within the caller's tenant.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey, listApiKeys } from "@/features/keys/server/keys";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

describe.each(testDbKinds)("spend by API key and end user on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let billing: string;
  let support: string;
  let idle: string;
  let globexKey: string;
  const as = async (email: string, slug?: string) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  // "Now" for the keys list: half past midnight UTC on 15 March 2026.
  const now = new Date(Date.UTC(2026, 2, 15, 0, 30));
  const at = (iso: string) => new Date(iso);

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const db = app.db;
    acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    const admin = await app.userId("admin@acme.test");
    const globexAdmin = await app.userId("admin@globex.test");
    const key = async (tenantId: string, name: string, by: string) =>
      (await createApiKey(db, { tenantId, name, createdBy: by })).key.id;
    billing = await key(acme, "Billing service", admin);
    support = await key(acme, "Support bot", admin);
    idle = await key(acme, "Idle", admin);
    globexKey = await key(globex, "Billing service", globexAdmin);
    const rows: {
      tenantId: string;
      apiKeyId: string | null;
      endUser: string | null;
      cost: string | null;
      startedAt: Date;
      status?: "success" | "failed" | "running";
    }[] = [
      // Billing, today: 1.005 + 0.0000001234 (exact: no float would keep both).
      {
        tenantId: acme,
        apiKeyId: billing,
        endUser: "alice",
        cost: "1.005",
        startedAt: at("2026-03-15T00:10:00Z"),
      },
      {
        tenantId: acme,
        apiKeyId: billing,
        endUser: "bob",
        cost: "0.0000001234",
        startedAt: at("2026-03-15T00:20:00Z"),
      },
      // Billing, yesterday (this month, not today), and last month (neither).
      {
        tenantId: acme,
        apiKeyId: billing,
        endUser: "alice",
        cost: "2.5",
        startedAt: at("2026-03-14T23:59:59Z"),
      },
      {
        tenantId: acme,
        apiKeyId: billing,
        endUser: "alice",
        cost: "100",
        startedAt: at("2026-02-28T23:59:59Z"),
      },
      // Support, today: one failed call that still cost something, one unpriced, one still running (not counted).
      {
        tenantId: acme,
        apiKeyId: support,
        endUser: "bob",
        cost: "0.01234",
        startedAt: at("2026-03-15T00:05:00Z"),
        status: "failed",
      },
      {
        tenantId: acme,
        apiKeyId: support,
        endUser: "bob",
        cost: null,
        startedAt: at("2026-03-15T00:06:00Z"),
      },
      {
        tenantId: acme,
        apiKeyId: support,
        endUser: "carol",
        cost: "9",
        startedAt: at("2026-03-15T00:07:00Z"),
        status: "running",
      },
      // A chat turn (no key, no end user) and another tenant's call with the same key name and end user.
      { tenantId: acme, apiKeyId: null, endUser: null, cost: "50", startedAt: at("2026-03-15T00:01:00Z") },
      {
        tenantId: globex,
        apiKeyId: globexKey,
        endUser: "alice",
        cost: "7",
        startedAt: at("2026-03-15T00:02:00Z"),
      },
    ];
    await db.insert(sysAgentTurn).values(
      rows.map((r) => ({
        id: crypto.randomUUID(),
        tenantId: r.tenantId,
        userId: r.tenantId === acme ? admin : globexAdmin,
        source: r.apiKeyId ? ("api" as const) : ("drawer" as const),
        requestedModel: "team-gpt",
        servedModel: "gpt-4o-mini",
        apiKeyId: r.apiKeyId,
        endUser: r.endUser,
        cost: r.cost,
        startedAt: r.startedAt,
        status: r.status ?? "success",
      })),
    );
  });
  afterAll(async () => {
    await app.close();
  });

  it("lists each key's spend today and this month (UTC), exact, closed rows only, this tenant's only", async () => {
    const keys = await listApiKeys(app.db, acme, now);
    const spend = Object.fromEntries(keys.map((k) => [k.name, [k.spentToday, k.spentThisMonth]]));
    expect(spend).toEqual({
      "Billing service": ["1.0050001234", "3.5050001234"],
      "Support bot": ["0.01234", "0.01234"],
      Idle: ["0", "0"],
    });
    expect(keys.map((k) => k.id)).not.toContain(globexKey);
    expect(keys.find((k) => k.id === idle)).toBeDefined();
  });

  it("charts cost by API key and by end user for the page's time range", async () => {
    await as("admin@acme.test", "acme");
    const march = "f.day.from=2026-03-01&f.day.to=2026-03-31";
    expect((await json(`agent-cost/series?chart=costByApiKey&${march}`)).body.points).toEqual([
      { label: "Billing service", value: "3.5050001234", key: billing },
      { label: "Support bot", value: "0.01234", key: support },
    ]);
    expect((await json(`agent-cost/series?chart=costByEndUser&${march}`)).body.points).toEqual([
      { label: "alice", value: "3.505", key: "alice" },
      { label: "bob", value: "0.0123401234", key: "bob" },
    ]);
    // One day: yesterday's and last month's calls fall outside.
    expect(
      (await json("agent-cost/series?chart=costByApiKey&f.day.from=2026-03-15&f.day.to=2026-03-15")).body
        .points,
    ).toEqual([
      { label: "Billing service", value: "1.0050001234", key: billing },
      { label: "Support bot", value: "0.01234", key: support },
    ]);
    // The page's other filters apply too.
    expect((await json("agent-cost/series?chart=costByEndUser&f.servedModel=gpt-4.1")).body.points).toEqual(
      [],
    );
  });

  it("shows the super admin every tenant, told apart by tenant name, or one tenant when filtered", async () => {
    await as("root@tollgate.test");
    const points = (await json("agent-cost/series?chart=costByApiKey&f.day.from=2026-03-15")).body.points;
    expect(points).toEqual([
      { label: "Billing service · Globex", value: "7", key: globexKey },
      { label: "Billing service · Acme", value: "1.0050001234", key: billing },
      { label: "Support bot · Acme", value: "0.01234", key: support },
    ]);
    expect(
      (await json(`agent-cost/series?chart=costByEndUser&f.day.from=2026-03-15&f.tenantId=${acme}`)).body
        .points,
    ).toEqual([
      { label: "alice · Acme", value: "1.005", key: "alice" },
      { label: "bob · Acme", value: "0.0123401234", key: "bob" },
    ]);
  });

  it("filters the ledger by one key's id, never another tenant's; a bad id is a 422 naming the filter", async () => {
    await as("admin@acme.test", "acme");
    const rows = (await json(`agent-turns/rows?f.apiKeyId=${billing}`)).body.rows as { caller: string }[];
    expect(rows.map((r) => r.caller)).toEqual(Array(4).fill("Billing service"));
    expect((await json(`agent-turns/rows?f.apiKeyId=${globexKey}`)).body.rows).toEqual([]);
    // A key whose row is gone is named by its id, never by the user who created it.
    const gone = crypto.randomUUID();
    await app.db.insert(sysAgentTurn).values({
      id: crypto.randomUUID(),
      tenantId: acme,
      userId: await app.userId("admin@acme.test"),
      source: "api",
      requestedModel: "team-gpt",
      apiKeyId: gone,
      status: "success",
      startedAt: at("2026-01-01T00:00:00Z"),
    });
    expect((await json(`agent-turns/rows?f.apiKeyId=${gone}`)).body.rows).toMatchObject([{ caller: gone }]);
    const bad = await json("agent-turns/rows?f.apiKeyId=billing");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(["f.apiKeyId"]);
  });

  it("refuses a bad time range or tenant filter with a 422 naming the field", async () => {
    await as("root@tollgate.test");
    const bad = await json("agent-cost/series?chart=costByApiKey&f.day.from=2026-02-31");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(["f.day.from"]);
    const tenant = await json("agent-cost/series?chart=costByEndUser&f.tenantId=acme");
    expect(tenant.status).toBe(422);
    expect(Object.keys(tenant.body.error.fields)).toEqual(["f.tenantId"]);
  });
});

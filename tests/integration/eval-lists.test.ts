import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { evalDataset, evalDatasetItem, evalRun, evalRunItem, membership } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

// The evaluations page's two lists (schema pages over the eval tables): scoped to the tenant, archived datasets
// left out, counts, pass rates and cost read from the run items.
vi.mock("@/lib/auth/session", () => import("../helpers/session"));

describe.each(testDbKinds)("the evaluation lists on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const as = async (email: string, slug?: string) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    const admin = await app.userId("admin@acme.test");
    const input = { messages: [{ role: "user" as const, content: "2+2?" }] };
    const [capitals, archived, theirs] = await app.db
      .insert(evalDataset)
      .values([
        { tenantId: acme, name: "capitals", scorers: [{ type: "contains" }], createdBy: admin },
        { tenantId: acme, name: "old", createdBy: admin, archivedAt: new Date() },
        { tenantId: globex, name: "globex cases", createdBy: admin },
      ])
      .returning();
    const items = await app.db
      .insert(evalDatasetItem)
      .values([
        { tenantId: acme, datasetId: capitals!.id, input, expected: "4" },
        { tenantId: acme, datasetId: capitals!.id, input, expected: "4" },
        { tenantId: acme, datasetId: capitals!.id, input, archivedAt: new Date() },
        { tenantId: acme, datasetId: archived!.id, input },
        { tenantId: globex, datasetId: theirs!.id, input },
      ])
      .returning();
    const [run] = await app.db
      .insert(evalRun)
      .values([
        {
          tenantId: acme,
          datasetId: capitals!.id,
          status: "running",
          targets: [
            { model: "gpt" },
            { model: "claude", prompt: { name: "support/triage", label: "production" } },
          ],
          scorers: [{ type: "contains" }],
          total: 4,
          createdBy: admin,
        },
        {
          tenantId: globex,
          datasetId: theirs!.id,
          status: "done",
          targets: [{ model: "gpt" }],
          scorers: [],
          total: 1,
          createdBy: admin,
        },
      ])
      .returning();
    const at = new Date();
    const cell = (
      itemId: string,
      targetIndex: number,
      status: "done" | "failed" | "pending",
      passed: boolean | null,
    ) => ({
      tenantId: acme,
      runId: run!.id,
      itemId,
      targetIndex,
      input,
      itemUpdatedAt: at,
      status,
      passed,
      cost: status === "pending" ? null : "0.0010",
      judgeCost: status === "done" ? "0.0005" : null,
    });
    await app.db
      .insert(evalRunItem)
      .values([
        cell(items[0]!.id, 0, "done", true),
        cell(items[0]!.id, 1, "done", false),
        cell(items[1]!.id, 0, "failed", null),
        cell(items[1]!.id, 1, "pending", null),
      ]);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("list a tenant admin's datasets only, archived ones left out, with their items and runs", async () => {
    await as("admin@acme.test", "acme");
    const { status, body } = await json("eval-datasets/rows");
    expect(status).toBe(200);
    expect(body.rows).toHaveLength(1);
    expect(body.rows[0]).toMatchObject({ name: "capitals", items: 2, runs: 1, scorers: ["contains"] });
    expect((await json("eval-datasets/count")).body.count).toBe(1);
  });

  it("list a tenant admin's runs with targets, progress, pass rate and cost", async () => {
    await as("admin@acme.test", "acme");
    const { status, body } = await json("eval-runs/rows");
    expect(status).toBe(200);
    expect(body.rows).toHaveLength(1);
    expect(body.rows[0]).toMatchObject({
      name: "capitals",
      datasetName: "capitals",
      status: "running",
      targets: ["gpt", "claude @ support/triage"],
      progress: "3 / 4",
      passed: 1,
      passRate: "33.3%",
    });
    expect(Number(body.rows[0].cost)).toBeCloseTo(0.004, 10);
    expect((await json("eval-runs/rows?segment=done")).body.rows).toHaveLength(0);
    expect((await json("eval-runs/rows?f.dataset=capi")).body.rows).toHaveLength(1);
    expect((await json("eval-runs/rows?f.dataset=nope")).body.rows).toHaveLength(0);
  });

  it("refuse members, and show the super admin every tenant's", async () => {
    await as("member@acme.test", "acme");
    expect((await json("eval-datasets/rows")).status).toBe(403);
    expect((await json("eval-runs/rows")).status).toBe(403);
    // A member an admin marks as a prompt editor opens them, for their own tenant only.
    const member = await app.userId("member@acme.test");
    const acme = await app.tenantId("acme");
    const mark = (on: boolean) =>
      app.db
        .update(membership)
        .set({ promptEditor: on })
        .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
    await mark(true);
    const mine = await json("eval-datasets/rows");
    expect(mine.status).toBe(200);
    expect(mine.body.rows.map((r: { name: string }) => r.name)).toEqual(["capitals"]);
    expect((await json("eval-runs/rows")).status).toBe(200);
    await mark(false);
    expect((await json("eval-datasets/rows")).status).toBe(403);
    await as("root@tollgate.test");
    const names = (await json("eval-datasets/rows")).body.rows.map((r: { name: string }) => r.name).sort();
    expect(names).toEqual(["capitals", "globex cases"]);
  });
});

import { and, eq, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sysAgentTurn, tenant } from "@/db/schema";
import { seedDemoData } from "@/features/demo/server";
import { findVersion, listPrompts } from "@/features/prompts/server/store";
import { reconcileRollups } from "@/lib/governance/reconcile";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

describe.each(testDbKinds)("the demo's prompts on %s", (kind) => {
  let test: TestDatabase;
  let acme: string;
  beforeAll(async () => {
    test = await createMigratedDatabase(kind);
    await seedDemoData(test.handle, { sampleTurns: 300 });
    const [row] = await test.handle.db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "acme"));
    acme = row!.id;
  });
  afterAll(async () => {
    await test.drop();
  });

  it("seeds two prompts with production and staging on different versions", async () => {
    const list = await listPrompts(test.handle.db, acme);
    expect(list.map((p) => [p.name, p.latestVersion])).toEqual([
      ["summarise", 1],
      ["support/triage", 2],
    ]);
    expect(list[1]!.labels).toEqual({ latest: 2, production: 1, staging: 2 });
    expect((await findVersion(test.handle.db, acme, "support/triage", {}))?.version).toBe(1);
  });

  it("attributes some sample API calls to the prompt, leaving the rollups equal to the ledger", async () => {
    const rows = await test.handle.db
      .select({ version: sysAgentTurn.promptVersion, source: sysAgentTurn.source })
      .from(sysAgentTurn)
      .where(and(eq(sysAgentTurn.tenantId, acme), isNotNull(sysAgentTurn.promptName)));
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(["api"]));
    const from = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const drift = await reconcileRollups(test.handle.db, { from, to, repair: false });
    expect(drift.lines).toEqual([]);
  });
});

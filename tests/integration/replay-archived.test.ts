// The replay of a turn whose month was archived: its tenant's admins are told where it is and how to bring it
// back; for another tenant the same id is still not found (an archive says nothing of another tenant's turns).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ArchivedTurnView } from "@/features/replay/components/archived-turn";
import { archivedTurn, turnReplay } from "@/features/replay/server";
import { archiveLedger, DirectoryTarget } from "@/lib/governance/archive";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
const page = await import("@/app/(app)/dev/agent/audit/[turnId]/page");
const replayRoute = await import("@/app/api/agent/turns/[id]/replay/route");

describe.each(testDbKinds)("an archived turn's replay on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let dir: string;
  let acme: string;
  let globex: string;
  let turnId: string;
  const month = "2025-03";
  const as = async (email: string, slug: string | null) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  const open = (id: string) => page.default({ params: Promise.resolve({ turnId: id }) });

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    dir = await mkdtemp(path.join(os.tmpdir(), "tollgate-replay-archive-"));
    turnId = uuidv7({ msecs: Date.parse(`${month}-05T10:00:00Z`) });
    await app.db.execute(sql`insert into sys_agent_turn (id, tenant_id, source, requested_model, started_at, status)
      values (${turnId}::uuid, ${acme}::uuid, 'api', 'gpt-x', ${`${month}-05T10:00:00Z`}::timestamptz, 'success')`);
    await app.db.execute(
      sql`update tenant set retention_days = 3650, archive_after_days = 30 where id = ${acme}::uuid`,
    );
    const result = await archiveLedger(app.db, new DirectoryTarget(dir), { tenantId: acme });
    expect(result.months.map((m) => m.month)).toContain(month);
  });
  afterAll(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers where the turn is for its own tenant, and nothing for another", async () => {
    await expect(turnReplay(app.db, { tenantId: acme, turnId })).rejects.toMatchObject({ code: "not_found" });
    expect(await archivedTurn(app.db, { tenantId: acme, turnId })).toEqual({
      tenantId: acme,
      month,
      location: `file://${dir}/${acme}/${month}`,
      restoreCommand: `npm run archive:restore -- --tenant ${acme} --month ${month}`,
    });
    expect(await archivedTurn(app.db, { tenantId: globex, turnId })).toBeNull();
  });

  it("shows 'This turn is archived' to the tenant's admin and 404 to another tenant's", async () => {
    await as("admin@acme.test", "acme");
    const shown = (await open(turnId)) as { type: unknown; props: { archive: { location: string } } };
    expect(shown.type).toBe(ArchivedTurnView);
    expect(shown.props.archive.location).toBe(`file://${dir}/${acme}/${month}`);

    await as("admin@globex.test", "globex");
    await expect(open(turnId)).rejects.toMatchObject({ digest: expect.stringContaining("404") });
    // A turn never archived is 404 for its tenant too.
    await as("admin@acme.test", "acme");
    await expect(open(uuidv7({ msecs: Date.parse("2025-07-01T00:00:00Z") }))).rejects.toMatchObject({
      digest: expect.stringContaining("404"),
    });
  });

  it("answers the replay API with 410 naming the archive for its tenant, and 404 for another tenant", async () => {
    const get = (id: string) =>
      replayRoute.GET(new Request(`http://app.test/api/agent/turns/${id}/replay`), {
        params: Promise.resolve({ id }),
      });
    await as("admin@acme.test", "acme");
    const gone = await get(turnId);
    expect(gone.status).toBe(410);
    const body = await gone.json();
    expect(JSON.stringify(body)).toContain(`file://${dir}/${acme}/${month}`);
    expect(JSON.stringify(body)).toContain(`npm run archive:restore -- --tenant ${acme} --month ${month}`);
    await as("admin@globex.test", "globex");
    expect((await get(turnId)).status).toBe(404);
  });
});

import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { membership, sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const datasets = await import("@/app/api/evals/datasets/route");
const fromTurn = await import("@/app/api/evals/datasets/[id]/from-turn/route");

const post = (body: unknown) =>
  new Request("http://app/api/x", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });

describe.each(testDbKinds)("Add to dataset reads only the turns its caller may read (%s)", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let adminTurn: string;
  let editorTurn: string;

  const as = async (email: string) => {
    session.claims = { userId: await app.userId(email), tenantId: acme };
  };
  /** An API turn of `email` whose request carries a secret only its own user should see. */
  const turnOf = async (email: string, secret: string) => {
    const id = randomUUID();
    const userId = await app.userId(email);
    await app.db.insert(sysAgentTurn).values({
      id,
      tenantId: acme,
      userId,
      source: "api",
      requestedModel: "offline-demo",
      status: "success",
    });
    await app.db.insert(sysAgentAudit).values({
      tenantId: acme,
      userId,
      turnId: id,
      seq: 1,
      type: "request",
      payload: { message: `user: ${secret}` },
    });
    return id;
  };
  const addFrom = async (turnId: string) => {
    const created = await datasets.POST(post({ name: `set-${randomUUID()}`, items: [] }), {
      params: Promise.resolve({}),
    });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    return fromTurn.POST(post({ turnId }), { params: Promise.resolve({ id }) });
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    // member@acme.test edits prompts (and so may build datasets) but is no admin: the ledger is not theirs.
    await app.db
      .update(membership)
      .set({ promptEditor: true })
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, await app.userId("member@acme.test"))));
    adminTurn = await turnOf("admin@acme.test", "the admin's private question");
    editorTurn = await turnOf("member@acme.test", "the editor's own question");
  });
  afterAll(async () => {
    await app.close();
  });

  it("a prompt editor gets 404 for another user's turn, exactly as for a turn that does not exist", async () => {
    await as("member@acme.test");
    const other = await addFrom(adminTurn);
    const missing = await addFrom(randomUUID());
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    const [otherBody, missingBody] = [await other.json(), await missing.json()];
    expect(otherBody.error.code).toBe("not_found");
    expect({ ...otherBody.error, requestId: undefined }).toEqual({
      ...missingBody.error,
      requestId: undefined,
    });
    expect(JSON.stringify(otherBody)).not.toContain("private question");
  });

  it("a prompt editor may add their own turn", async () => {
    await as("member@acme.test");
    const own = await addFrom(editorTurn);
    expect(own.status).toBe(201);
    expect((await own.json()).input.messages).toEqual([
      { role: "user", content: "the editor's own question" },
    ]);
  });

  it("a tenant admin may add any turn of the tenant", async () => {
    await as("admin@acme.test");
    expect((await addFrom(adminTurn)).status).toBe(201);
    expect((await addFrom(editorTurn)).status).toBe(201);
  });
});

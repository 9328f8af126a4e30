import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminChange, appUser } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const keysRoute = await import("@/app/api/keys/route");
const keyRoute = await import("@/app/api/keys/[id]/route");
const mcpRoute = await import("@/app/mcp/route");

type Handler<P> = (req: Request, segment: { params: Promise<P> }) => Promise<Response>;
async function call<P = Record<string, never>>(
  handler: Handler<P>,
  method: string,
  params: P,
  body?: unknown,
) {
  const res = await handler(
    new Request("http://app.test/api/keys", {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json() };
}

describe.each(testDbKinds)("a key's allowed tools, set through the keys API, on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const as = async (email: string, slug: string) => {
    const userId = await app.userId(email);
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    session.claims = { userId, tenantId: await app.tenantId(slug), epoch: u!.sessionEpoch };
  };
  /** What /mcp lists for the key, through the route itself (the SDK's client, its fetch handed to the route). */
  const listed = async (secret: string) => {
    const client = new Client({ name: "outside-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://app.test/mcp"), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
        fetch: (url, init) => mcpRoute.POST(new Request(url, init)),
      }),
    );
    try {
      return (await client.listTools()).tools.map((t) => t.name).sort();
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(() => app.close());

  it("creates a key with a list, changes it (seen by /mcp at once) and clears it, each change in the admin log", async () => {
    await as("admin@acme.test", "acme");
    const created = await call(
      keysRoute.POST,
      "POST",
      {},
      { name: "ide agent", allowedTools: ["current_time", " query_orders ", "current_time"] },
    );
    expect(created.status).toBe(201);
    expect(created.body.key.allowedTools).toEqual(["current_time", "query_orders"]);
    const { secret } = created.body;
    const id = created.body.key.id;
    expect(await listed(secret)).toEqual(["current_time", "query_orders"]);

    const changed = await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: ["get_order"] });
    expect(changed).toMatchObject({ status: 200, body: { key: { id, allowedTools: ["get_order"] } } });
    expect(await listed(secret)).toEqual(["get_order"]);

    const none = await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: [] });
    expect(none.body.key.allowedTools).toEqual([]);
    expect(await listed(secret)).toEqual([]);

    const all = await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: null });
    expect(all.body.key.allowedTools).toBeNull();
    expect(await listed(secret)).toEqual(
      expect.arrayContaining(["current_time", "get_order", "query_orders"]),
    );

    const list = await call(keysRoute.GET, "GET", {});
    expect(list.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ allowedTools: null });
    const log = await app.db.select().from(adminChange).where(eq(adminChange.objectId, id));
    expect(log.map((r) => [r.action, r.before, r.after])).toEqual(
      expect.arrayContaining([
        [
          "api_key.created",
          null,
          expect.objectContaining({ allowedTools: ["current_time", "query_orders"] }),
        ],
        [
          "api_key.tools_changed",
          { name: "ide agent", allowedTools: ["current_time", "query_orders"] },
          { name: "ide agent", allowedTools: ["get_order"] },
        ],
        [
          "api_key.tools_changed",
          { name: "ide agent", allowedTools: [] },
          { name: "ide agent", allowedTools: null },
        ],
      ]),
    );
  });

  it("refuses bad names (422 naming the field), another tenant's or a revoked key (404), and members (403)", async () => {
    await as("admin@acme.test", "acme");
    const created = await call(keysRoute.POST, "POST", {}, { name: "limited" });
    expect(created.body.key.allowedTools).toBeNull();
    const id = created.body.key.id;

    const bad = await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: ["no spaces please"] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields["allowedTools.0"]?.[0]).toContain("1-64 letters");
    const missing = await call(keyRoute.PATCH, "PATCH", { id }, {});
    expect(missing.status).toBe(422);
    const tooMany = await call(
      keysRoute.POST,
      "POST",
      {},
      {
        name: "greedy",
        allowedTools: Array.from({ length: 201 }, (_, i) => `tool_${i}`),
      },
    );
    expect(tooMany.status).toBe(422);

    await as("admin@globex.test", "globex");
    expect((await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: ["x"] })).status).toBe(404);
    await as("member@acme.test", "acme");
    expect((await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: ["x"] })).status).toBe(403);

    await as("admin@acme.test", "acme");
    await call(keyRoute.DELETE, "DELETE", { id });
    expect((await call(keyRoute.PATCH, "PATCH", { id }, { allowedTools: ["x"] })).status).toBe(404);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "@/db";
import { configFromEnvironment } from "@/lib/gateway/config";
import { createContainer, installContainer } from "@/server/container";

const offline = configFromEnvironment({});
const toolNames = (demo: boolean) =>
  createContainer({ demo, gateway: offline })
    .tools.registry.listTools()
    .map((t) => t.name);

describe("the composition root", () => {
  afterEach(() => installContainer(undefined));

  it("registers the demo's orders tools only where the demo is seeded", () => {
    expect(toolNames(true)).toContain("query_orders");
    expect(toolNames(false)).not.toContain("query_orders");
    expect(toolNames(false)).toContain("current_time");
  });

  it("serves the tool catalogue page from the registered tools, each with its tool set", async () => {
    const app = createContainer({ demo: true, gateway: offline });
    const superAdmin = { user: { isSuperAdmin: true }, role: "admin", tenant: null } as never;
    const { page, provider, ctx } = app.pages.open("agent-tools", superAdmin);
    expect(page.provider).toBe("toolCatalog");
    const query = {
      filters: {},
      segment: null,
      sort: { field: "name", direction: "asc" },
      cursor: null,
      limit: 100,
    };
    const { rows } = await provider.rows(ctx, query as never);
    expect(rows).toContainEqual(expect.objectContaining({ name: "query_orders", toolSet: "orders" }));
    expect(rows).toHaveLength(app.tools.registry.tools().length);
  });

  it("is one per process: a separately loaded copy of the module reads the installed container", async () => {
    vi.resetModules();
    const first = await import("@/server/container");
    vi.resetModules();
    const second = await import("@/server/container");
    expect(second).not.toBe(first);
    const handle = { kind: "pglite" } as DatabaseHandle;
    const app = first.installContainer(first.createContainer({ database: handle, gateway: offline }));
    expect(second.container()).toBe(app);
    // The installed container's database is the one getDb() answers in every bundle.
    expect(await (await import("@/db")).getDatabase()).toBe(handle);
  });
});

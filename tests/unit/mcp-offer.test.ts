import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allowedToolsSummary, parseToolNames } from "@/features/keys/allowed-tools";
import { allowedToolsField } from "@/features/keys/contracts";
import { mcpOffer, withheldReason } from "@/features/mcp/server/endpoint/offer";
import { ToolRegistry } from "@/lib/agent/registry";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";

const tool = (name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}) =>
  defineTool({ name, description: name, parameters: z.object({}), execute: async () => "ok", ...extra });

describe("what /mcp offers a key", () => {
  it("withholds hidden, admin-only, conversation- and user-bound and confirmation tools, then what the key's list leaves out", () => {
    expect(withheldReason(tool("plain"), null)).toBeNull();
    expect(withheldReason(tool("members", { roles: ["member", "admin"] }), null)).toBeNull();
    expect(withheldReason(tool("off", { hidden: true }), null)).toBe("it is switched off");
    expect(withheldReason(tool("admins", { roles: ["admin"] }), null)).toBe("it is for tenant admins only");
    expect(withheldReason(tool("plan", { needs: "conversation" }), null)).toMatch(/conversation/);
    expect(withheldReason(tool("notes", { needs: "user" }), null)).toMatch(/signed-in user/);
    expect(withheldReason(tool("risky", { requiresConfirmation: true }), null)).toMatch(/approval/);
    expect(withheldReason(tool("plain"), ["other"])).toBe("it is not in this API key's allowed tools");
    expect(withheldReason(tool("plain"), ["plain"])).toBeNull();
    expect(withheldReason(tool("plain"), [])).not.toBeNull();
  });

  it("offers the app's tools, then the tenant's own; an app tool's name wins over a tenant's", async () => {
    const registry = new ToolRegistry().register(
      new StaticToolSet("app", [tool("lookup"), tool("admin_only", { roles: ["admin"] })]),
    );
    registry.setTenantSource({
      toolSets: async (tenantId) =>
        tenantId === "t1"
          ? [new StaticToolSet("crm", [tool("crm__find")]), new StaticToolSet("shadow", [tool("lookup")])]
          : [],
    });
    const offer = await mcpOffer(registry, "t1", null);
    expect([...offer.offered.keys()]).toEqual(["lookup", "crm__find"]);
    expect([...offer.withheld.keys()]).toEqual(["admin_only"]);
    expect([...(await mcpOffer(registry, "t2", null)).offered.keys()]).toEqual(["lookup"]);
    expect([...(await mcpOffer(registry, "t1", ["crm__find"])).offered.keys()]).toEqual(["crm__find"]);
  });
});

describe("a key's allowed tools on the keys page", () => {
  it("reads names separated by commas or spaces, once each", () => {
    expect(parseToolNames(" query_orders,current_time  crm__find,\n,query_orders ")).toEqual([
      "query_orders",
      "current_time",
      "crm__find",
    ]);
    expect(parseToolNames("  ")).toEqual([]);
  });

  it("summarises all, none, a few by name and many by count", () => {
    const words = { all: "all", none: "none", count: (n: number) => `${n} tools` };
    expect(allowedToolsSummary(null, words)).toBe("all");
    expect(allowedToolsSummary([], words)).toBe("none");
    expect(allowedToolsSummary(["a", "b"], words)).toBe("a, b");
    expect(allowedToolsSummary(["a", "b", "c", "d"], words)).toBe("4 tools");
  });

  it("the contract keeps null, drops repeats and refuses names no provider takes", () => {
    expect(allowedToolsField.parse(null)).toBeNull();
    expect(allowedToolsField.parse(["a", " a ", "b"])).toEqual(["a", "b"]);
    expect(allowedToolsField.safeParse(["has space"]).success).toBe(false);
    expect(allowedToolsField.safeParse(["x".repeat(65)]).success).toBe(false);
  });
});

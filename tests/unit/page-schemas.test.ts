import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadPageSchemas, PageSchemaError, parsePageSchema } from "@/features/admin-tables/server/load";

const providers = [
  "agentTurns",
  "agentAudit",
  "agentCost",
  "agentPrompts",
  "agentRuns",
  "toolCatalog",
  "gatewayRouting",
  "adminChanges",
  "adminTenants",
  "adminMembers",
  "adminInvitations",
  "evalDatasets",
  "evalRuns",
];

describe("page schemas", () => {
  it("every schema file in schemas/ validates", () => {
    const pages = loadPageSchemas(providers);
    expect([...pages.keys()].sort()).toEqual([
      "admin-changes",
      "admin-invitations",
      "admin-members",
      "admin-tenants",
      "agent-audit",
      "agent-cost",
      "agent-prompts",
      "agent-runs",
      "agent-tools",
      "agent-turns",
      "eval-datasets",
      "eval-runs",
      "gateway-routing",
    ]);
  });

  it("a broken file is refused with the file and the field named", () => {
    const good = JSON.parse(readFileSync("schemas/agent-turns.schema.json", "utf8"));
    const broken = structuredClone(good);
    broken.columns[2].cell = "sparkline";
    expect(() => parsePageSchema(broken, "schemas/agent-turns.schema.json", providers)).toThrow(
      /^schemas\/agent-turns\.schema\.json: columns\[2\]\.cell must be one of "text", "badge"/,
    );
    const noTitle = structuredClone(good);
    delete noTitle.title.zh;
    expect(() => parsePageSchema(noTitle, "x/agent-turns.schema.json", providers)).toThrow(
      /title\.zh is required/,
    );
    expect(() =>
      parsePageSchema({ ...good, provider: "nope" }, "x/agent-turns.schema.json", providers),
    ).toThrow(PageSchemaError);
    expect(() =>
      parsePageSchema(
        { ...good, defaultSort: { field: "zzz", direction: "asc" } },
        "x/agent-turns.schema.json",
        providers,
      ),
    ).toThrow(/defaultSort\.field is "zzz"/);
  });
});

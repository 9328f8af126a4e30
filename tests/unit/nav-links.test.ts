import { describe, expect, it } from "vitest";
import { isCurrent, navGroups } from "@/components/ui/nav-links";

const hrefs = (groups: ReturnType<typeof navGroups>) =>
  Object.fromEntries(groups.map((g) => [g.key, g.links.map((l) => l.href)]));

describe("the top bar's menus", () => {
  it("group usage pages and admin pages; a member sees only the prompts, someone without a tenant nothing", () => {
    expect(navGroups({ tenantAdmin: false, superAdmin: false })).toEqual([]);
    expect(hrefs(navGroups({ tenantAdmin: false, superAdmin: false, member: true }))).toEqual({
      workspace: ["/dev/agent/prompts", "/dev/agent/skills"],
    });
    // A member an admin marked as a prompt editor also opens the evaluations.
    expect(
      hrefs(navGroups({ tenantAdmin: false, superAdmin: false, member: true, promptEditor: true })),
    ).toEqual({ workspace: ["/dev/agent/prompts", "/dev/agent/skills", "/dev/agent/evals"] });
    // A reviewer also opens the review queues they may work.
    expect(hrefs(navGroups({ tenantAdmin: false, superAdmin: false, member: true, reviewer: true }))).toEqual(
      {
        workspace: ["/dev/agent/prompts", "/dev/agent/skills", "/review"],
      },
    );
    expect(hrefs(navGroups({ tenantAdmin: true, superAdmin: false, member: true }))).toEqual({
      usage: [
        "/dev/agent/turns",
        "/dev/agent/runs",
        "/dev/agent/audit",
        "/dev/agent/cost",
        "/dev/agent/tools",
      ],
      admin: [
        "/dev/admin/keys",
        "/dev/admin/limits",
        "/dev/admin/alerts",
        "/dev/admin/scores",
        "/dev/admin/reviews",
        "/dev/admin/guardrails",
        "/dev/admin/routing",
        "/dev/admin/mcp",
        "/dev/admin/members",
        "/dev/admin/changes",
        "/dev/agent/prompts",
        "/dev/agent/skills",
        "/dev/agent/evals",
      ],
    });
  });

  it("show the tenants page to the super admin only", () => {
    expect(hrefs(navGroups({ tenantAdmin: true, superAdmin: true })).admin).toContain("/dev/admin/tenants");
    expect(hrefs(navGroups({ tenantAdmin: true, superAdmin: false })).admin).not.toContain(
      "/dev/admin/tenants",
    );
  });

  it("mark a page current on its own path and the paths below it, not on a neighbour's", () => {
    expect(isCurrent("/dev/agent/audit", "/dev/agent/audit")).toBe(true);
    expect(isCurrent("/dev/agent/audit/0b7c", "/dev/agent/audit")).toBe(true);
    expect(isCurrent("/dev/agent/auditing", "/dev/agent/audit")).toBe(false);
    expect(isCurrent("/dev/agent/cost", "/")).toBe(false);
    expect(isCurrent("/", "/")).toBe(true);
  });
});

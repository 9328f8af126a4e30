// The signed-in shell's links, grouped the way admins look for them; pure, so the top bar, the home page and
// the tests read the same list.
import type { MessageKey } from "@/lib/i18n/messages";

export type NavLink = { href: string; label: MessageKey };
export type NavGroup = { key: "usage" | "admin" | "workspace"; label: MessageKey; links: NavLink[] };

const USAGE: NavLink[] = [
  { href: "/dev/agent/turns", label: "nav.turns" },
  { href: "/dev/agent/runs", label: "nav.runs" },
  { href: "/dev/agent/audit", label: "nav.audit" },
  { href: "/dev/agent/cost", label: "nav.cost" },
  { href: "/dev/agent/tools", label: "nav.tools" },
];
const ADMIN: (NavLink & { superAdminOnly?: true })[] = [
  { href: "/dev/admin/keys", label: "nav.keys" },
  { href: "/dev/admin/limits", label: "nav.limits" },
  { href: "/dev/admin/alerts", label: "nav.alerts" },
  { href: "/dev/admin/scores", label: "nav.scores" },
  { href: "/dev/admin/reviews", label: "nav.reviews" },
  { href: "/dev/admin/guardrails", label: "nav.guardrails" },
  { href: "/dev/admin/routing", label: "nav.routing" },
  { href: "/dev/admin/mcp", label: "nav.mcp" },
  { href: "/dev/admin/members", label: "nav.members" },
  // Only the platform super admin sees it (the page answers 403 to everyone else).
  { href: "/dev/admin/tenants", label: "nav.tenants", superAdminOnly: true },
  { href: "/dev/admin/changes", label: "nav.changes" },
  { href: "/dev/agent/prompts", label: "nav.prompts" },
  { href: "/dev/agent/skills", label: "nav.skills" },
  { href: "/dev/agent/evals", label: "nav.evals" },
];
/** What every member of a tenant may open: the prompts (read, and the playground) and the skills (read). */
const WORKSPACE: NavLink[] = [
  { href: "/dev/agent/prompts", label: "nav.prompts" },
  { href: "/dev/agent/skills", label: "nav.skills" },
];
/** What a prompt editor (a member an admin marked) opens besides: the evaluations. */
const EDITOR: NavLink[] = [{ href: "/dev/agent/evals", label: "nav.evals" }];
/** What a reviewer (a member an admin gave the reviewer right) opens besides: the queues they may work. */
const REVIEWER: NavLink[] = [{ href: "/review", label: "nav.review" }];

/**
 * The groups a user sees: a member of a tenant the workspace (prompts, evaluations for a prompt editor, the review
 * queues for a reviewer), a
 * tenant admin Usage and Admin, and the super admin the tenants page too. Someone with no tenant sees none.
 */
export function navGroups(who: {
  tenantAdmin: boolean;
  superAdmin: boolean;
  member?: boolean;
  promptEditor?: boolean;
  /** A member an admin gave the reviewer right (the review queue pages add their link by it). */
  reviewer?: boolean;
}): NavGroup[] {
  if (!who.tenantAdmin && !who.superAdmin)
    return who.member
      ? [
          {
            key: "workspace",
            label: "nav.workspace",
            links: [...WORKSPACE, ...(who.promptEditor ? EDITOR : []), ...(who.reviewer ? REVIEWER : [])],
          },
        ]
      : [];
  return [
    { key: "usage", label: "nav.usage", links: USAGE },
    {
      key: "admin",
      label: "nav.admin",
      links: ADMIN.filter((l) => who.superAdmin || !l.superAdminOnly).map(({ href, label }) => ({
        href,
        label,
      })),
    },
  ];
}

/** A link is the current page on its own path and below it (a turn's replay is under the audit replay). */
export const isCurrent = (pathname: string, href: string) =>
  href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);

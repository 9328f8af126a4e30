import Link from "next/link";
import { signOutAction } from "@/app/(app)/actions";
import { AgentDrawerToggle } from "@/components/agent-drawer/drawer-toggle";
import { LanguageSwitch, ThemeToggle } from "@/components/ui/preferences";
import { TenantSwitcher } from "@/components/ui/tenant-switcher";
import { isTenantAdmin, type UserContext } from "@/lib/auth/guards";
import type { MessageKey } from "@/lib/i18n/messages";
import { getTranslator } from "@/lib/i18n/server";

export const ADMIN_LINKS: { href: string; label: MessageKey }[] = [
  { href: "/dev/agent/turns", label: "nav.turns" },
  { href: "/dev/agent/audit", label: "nav.audit" },
  { href: "/dev/agent/cost", label: "nav.cost" },
  { href: "/dev/agent/tools", label: "nav.tools" },
  { href: "/dev/agent/prompts", label: "nav.prompts" },
  { href: "/dev/admin/keys", label: "nav.keys" },
  { href: "/dev/admin/limits", label: "nav.limits" },
  { href: "/dev/admin/members", label: "nav.members" },
  { href: "/dev/admin/changes", label: "nav.changes" },
];
/** Links only the platform super admin sees (their pages answer 403 to everyone else). */
export const SUPER_ADMIN_LINKS: { href: string; label: MessageKey }[] = [
  { href: "/dev/admin/tenants", label: "nav.tenants" },
];

export async function TopBar({ auth }: { auth: UserContext }) {
  const t = await getTranslator();
  const roleLabel = auth.user.isSuperAdmin ? t("role.super") : auth.role ? t(`role.${auth.role}`) : "";
  return (
    <header
      id="top-bar"
      className="sticky top-0 z-20 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-900/90"
    >
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2">
        <Link href="/" className="font-semibold text-indigo-600 dark:text-indigo-400">
          {t("app.name")}
        </Link>
        <TenantSwitcher
          tenants={auth.tenants.map(({ id, name }) => ({ id, name }))}
          activeId={auth.tenant?.id ?? null}
          platformOption={auth.user.isSuperAdmin}
        />
        {isTenantAdmin(auth) && (
          <nav aria-label={t("nav.admin")} className="flex flex-wrap gap-3 text-sm">
            {[...ADMIN_LINKS, ...(auth.user.isSuperAdmin ? SUPER_ADMIN_LINKS : [])].map((link) => (
              <Link
                key={link.href}
                href={link.href}
                className="text-slate-600 hover:text-indigo-600 dark:text-slate-300"
              >
                {t(link.label)}
              </Link>
            ))}
          </nav>
        )}
        <div className="ml-auto flex items-center gap-2">
          <AgentDrawerToggle />
          <LanguageSwitch />
          <ThemeToggle />
          <details className="relative" data-testid="user-menu">
            <summary className="cursor-pointer list-none rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700">
              {auth.user.name}{" "}
              {roleLabel && <span className="hidden text-xs text-slate-500 sm:inline">· {roleLabel}</span>}
            </summary>
            <div className="absolute right-0 mt-1 w-64 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900">
              <p className="mb-2 truncate text-slate-500">
                {t("user.signedInAs", { email: auth.user.email })}
              </p>
              <Link
                href="/account"
                data-testid="account-link"
                className="mb-2 block rounded-md px-2 py-1 hover:bg-slate-100 dark:hover:bg-slate-800"
              >
                {t("user.account")}
              </Link>
              <form action={signOutAction}>
                <button
                  type="submit"
                  className="w-full rounded-md bg-slate-100 px-2 py-1 text-left hover:bg-slate-200 dark:bg-slate-800 dark:hover:bg-slate-700"
                >
                  {t("user.signOut")}
                </button>
              </form>
            </div>
          </details>
        </div>
      </div>
    </header>
  );
}

import Link from "next/link";
import type { ReactNode } from "react";
import { signOutAction } from "@/app/(app)/actions";
import { LanguageSwitch, ThemeToggle } from "@/components/ui/preferences";
import { TenantSwitcher } from "@/components/ui/tenant-switcher";
import { isTenantAdmin, type UserContext } from "@/lib/auth/guards";
import { getTranslator } from "@/lib/i18n/server";
import { navGroups } from "./nav-links";
import { TopBarFrame } from "./top-bar-frame";

/** The first letter of the name (or email), for the phone's avatar. */
const initial = (name: string, email: string) => (name.trim() || email).charAt(0).toUpperCase();

/** The top bar; `drawerToggle` is the agent drawer's button (the drawer is a feature, this bar is shared UI). */
export async function TopBar({ auth, drawerToggle }: { auth: UserContext; drawerToggle?: ReactNode }) {
  const t = await getTranslator();
  const roleLabel = auth.user.isSuperAdmin ? t("role.super") : auth.role ? t(`role.${auth.role}`) : "";
  const groups = navGroups({
    tenantAdmin: isTenantAdmin(auth),
    superAdmin: auth.user.isSuperAdmin,
    member: !!auth.tenant,
    promptEditor: auth.tenant?.promptEditor ?? false,
    reviewer: auth.tenant?.reviewer ?? false,
  });
  return (
    <TopBarFrame
      brand={
        <Link href="/" className="shrink-0 font-semibold text-indigo-600 dark:text-indigo-400">
          {t("app.name")}
        </Link>
      }
      tenant={
        <TenantSwitcher
          tenants={auth.tenants.map(({ id, name }) => ({ id, name }))}
          activeId={auth.tenant?.id ?? null}
          platformOption={auth.user.isSuperAdmin}
        />
      }
      groups={groups}
      prefs={
        <>
          <LanguageSwitch />
          <ThemeToggle />
        </>
      }
      end={
        <>
          {drawerToggle}
          <details className="relative" data-testid="user-menu">
            <summary
              title={`${auth.user.name} · ${auth.user.email}`}
              className="flex cursor-pointer list-none items-center gap-2 rounded-md border border-slate-300 py-0.5 pr-0.5 pl-0.5 text-sm md:pr-2 dark:border-slate-700"
            >
              <span
                aria-hidden="true"
                className="flex h-7 w-7 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700 dark:bg-indigo-900 dark:text-indigo-200"
              >
                {initial(auth.user.name, auth.user.email)}
              </span>
              {/* The whole name for screen readers; on screen, cut to one line, and only from 768 px. */}
              <span className="sr-only md:not-sr-only md:max-w-40 md:truncate">{auth.user.name}</span>
              {roleLabel && (
                <span className="hidden whitespace-nowrap text-xs text-slate-500 lg:inline">
                  · {roleLabel}
                </span>
              )}
            </summary>
            <div className="absolute right-0 z-30 mt-1 w-64 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900">
              <p className="mb-2 truncate font-medium">{auth.user.name}</p>
              <p className="mb-2 truncate text-slate-500">
                {t("user.signedInAs", { email: auth.user.email })}
              </p>
              {roleLabel && <p className="mb-2 text-xs text-slate-500">{roleLabel}</p>}
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
        </>
      }
    />
  );
}

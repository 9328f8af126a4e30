"use client";

import { usePathname } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { NavGroup } from "./nav-links";
import { NavList, NavMenu } from "./nav-menu";

const PANEL_ID = "top-bar-panel";

/**
 * The top bar's layout: one row of 56 px at every width. From 768 px the tenant, the menus and the preferences sit
 * in the row; below, they fold into a panel under a menu button, rendered once either way (no twin controls).
 */
export function TopBarFrame(props: {
  brand: ReactNode;
  tenant: ReactNode;
  groups: NavGroup[];
  prefs: ReactNode;
  end: ReactNode;
}) {
  const { t } = useI18n();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation closes the panel
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: globalThis.KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <header
      id="top-bar"
      className="sticky top-0 z-20 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-900/90"
    >
      <div className="relative mx-auto flex h-[55px] max-w-6xl items-center gap-3 px-4">
        <button
          type="button"
          data-testid="nav-toggle"
          aria-expanded={open}
          aria-controls={PANEL_ID}
          aria-label={open ? t("nav.closeMenu") : t("nav.openMenu")}
          onClick={() => setOpen((v) => !v)}
          className="-ml-1 flex h-9 w-9 shrink-0 items-center justify-center rounded-md border border-slate-300 text-lg leading-none hover:bg-slate-100 md:hidden dark:border-slate-700 dark:hover:bg-slate-800"
        >
          <span aria-hidden="true">{open ? "✕" : "☰"}</span>
        </button>
        {props.brand}
        <div
          id={PANEL_ID}
          className={`${
            open
              ? "absolute inset-x-0 top-full flex max-h-[calc(100vh-56px)] flex-col gap-4 overflow-y-auto border-b border-slate-200 bg-white p-4 shadow-lg dark:border-slate-800 dark:bg-slate-900"
              : "hidden"
          } md:static md:flex md:max-h-none md:min-w-0 md:flex-1 md:flex-row md:items-center md:gap-4 md:overflow-visible md:border-0 md:bg-transparent md:p-0 md:shadow-none md:dark:bg-transparent`}
        >
          {props.tenant}
          {props.groups.length > 0 && (
            <nav aria-label={t("nav.main")} className="min-w-0">
              <div className="hidden items-center gap-1 md:flex">
                {props.groups.map((group) => (
                  <NavMenu key={group.key} group={group} />
                ))}
              </div>
              <div className="md:hidden">
                <NavList groups={props.groups} />
              </div>
            </nav>
          )}
          <div className="flex items-center gap-2 md:ml-auto">{props.prefs}</div>
        </div>
        <div className="ml-auto flex shrink-0 items-center gap-2 md:ml-0">{props.end}</div>
      </div>
    </header>
  );
}

"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import { isCurrent, type NavGroup } from "./nav-links";

const ITEM =
  "block rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none dark:text-slate-200 dark:hover:bg-slate-800 dark:focus:bg-slate-800";
const CURRENT_ITEM =
  "bg-indigo-50 font-semibold text-indigo-700 shadow-[inset_3px_0_0_#6366f1] dark:bg-indigo-950 dark:text-indigo-200";

/**
 * One group of links as a menu button (WAI-ARIA menu button): Enter, Space or ↓ opens it on the first item,
 * ↑ on the last; ↑ ↓ Home End move; Escape closes it back onto the button; Tab or a click outside closes it.
 */
export function NavMenu({ group }: { group: NavGroup }) {
  const { t } = useI18n();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const id = useId();
  const current = group.links.some((l) => isCurrent(pathname, l.href));

  const items = () => [...(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  const focusItem = (index: number) => {
    const all = items();
    all[(index + all.length) % all.length]?.focus();
  };
  const openAt = (index: number) => {
    setOpen(true);
    requestAnimationFrame(() => focusItem(index));
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!list.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  // A navigation closes the menu (the link's page replaces this one under the same top bar).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each change of path
  useEffect(() => setOpen(false), [pathname]);

  const onButtonKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      openAt(0);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      openAt(-1);
    }
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: -1 };
    if (e.key in moves) {
      e.preventDefault();
      focusItem(moves[e.key]!);
    } else if (e.key === "Escape") {
      e.preventDefault();
      close(true);
    } else if (e.key === "Tab") {
      setOpen(false);
    }
  };

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        id={`${id}-button`}
        data-testid={`nav-menu-${group.key}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={`${id}-menu`}
        aria-current={current ? "true" : undefined}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={onButtonKey}
        className={`flex items-center gap-1 rounded-md px-2 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-800 ${
          current
            ? "font-semibold text-indigo-700 underline decoration-2 underline-offset-[6px] dark:text-indigo-300"
            : "text-slate-700 dark:text-slate-200"
        }`}
      >
        {t(group.label)}
        {current && <span className="sr-only"> {t("nav.currentSection")}</span>}
        <span aria-hidden="true" className="text-xs text-slate-400">
          ▾
        </span>
      </button>
      <div
        ref={list}
        id={`${id}-menu`}
        role="menu"
        aria-labelledby={`${id}-button`}
        hidden={!open}
        onKeyDown={onMenuKey}
        className="absolute left-0 z-30 mt-1 w-56 rounded-lg border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        {group.links.map((link) => {
          const here = isCurrent(pathname, link.href);
          return (
            <Link
              key={link.href}
              href={link.href}
              role="menuitem"
              tabIndex={-1}
              aria-current={here ? "page" : undefined}
              onClick={() => setOpen(false)}
              className={`${ITEM} ${here ? CURRENT_ITEM : ""}`}
            >
              {t(link.label)}
            </Link>
          );
        })}
      </div>
    </div>
  );
}

/** The same groups as plain lists, for the phone's menu panel (a menu inside a menu would be one tap too many). */
export function NavList({ groups }: { groups: NavGroup[] }) {
  const { t } = useI18n();
  const pathname = usePathname();
  return (
    <div className="grid grid-cols-2 gap-4">
      {groups.map((group) => (
        <section key={group.key} aria-label={t(group.label)}>
          <h2 className="mb-1 px-3 text-xs font-semibold uppercase tracking-wide text-slate-500">
            {t(group.label)}
          </h2>
          <ul>
            {group.links.map((link) => {
              const here = isCurrent(pathname, link.href);
              return (
                <li key={link.href}>
                  <Link
                    href={link.href}
                    aria-current={here ? "page" : undefined}
                    className={`${ITEM} ${here ? CURRENT_ITEM : ""}`}
                  >
                    {t(link.label)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </div>
  );
}

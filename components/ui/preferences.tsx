"use client";

import { useRouter } from "next/navigation";
import { useI18n } from "@/components/i18n";
import { LOCALE_COOKIE, THEME_COOKIE } from "@/lib/i18n/messages";

const ONE_YEAR = 365 * 24 * 3600;
const setCookie = (name: string, value: string) => {
  // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, read by the server on the next render
  document.cookie = `${name}=${value}; path=/; max-age=${ONE_YEAR}; samesite=lax`;
};

export function LanguageSwitch() {
  const { locale, t } = useI18n();
  const router = useRouter();
  return (
    <select
      aria-label={t("lang.label")}
      data-testid="language-switch"
      value={locale}
      onChange={(e) => {
        setCookie(LOCALE_COOKIE, e.target.value);
        router.refresh();
      }}
      className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
    >
      <option value="en">English</option>
      <option value="zh">简体中文</option>
    </select>
  );
}

export function ThemeToggle() {
  const { t } = useI18n();
  return (
    <button
      type="button"
      aria-label={t("theme.toggle")}
      title={t("theme.toggle")}
      data-testid="theme-toggle"
      onClick={() => {
        const dark = !document.documentElement.classList.contains("dark");
        document.documentElement.classList.toggle("dark", dark);
        setCookie(THEME_COOKIE, dark ? "dark" : "light");
      }}
      className="rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
    >
      <span className="dark:hidden">☾</span>
      <span className="hidden dark:inline">☀</span>
    </button>
  );
}

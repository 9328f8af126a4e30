// Every message of the UI, assembled from one file per area (lib/i18n/areas/): English is the source, and each
// area's Chinese must have every one of its keys.
import * as account from "./areas/account";
import * as admin from "./areas/admin";
import * as alerts from "./areas/alerts";
import * as charts from "./areas/charts";
import * as codeRun from "./areas/code-run";
import * as context from "./areas/context";
import * as cost from "./areas/cost";
import * as drawer from "./areas/drawer";
import * as evals from "./areas/evals";
import * as filters from "./areas/filters";
import * as governance from "./areas/governance";
import * as guardrails from "./areas/guardrails";
import * as home from "./areas/home";
import * as keyLifecycle from "./areas/key-lifecycle";
import * as keys from "./areas/keys";
import * as limits from "./areas/limits";
import * as login from "./areas/login";
import * as mcp from "./areas/mcp";
import * as mcpKeys from "./areas/mcp-keys";
import * as nav from "./areas/nav";
import * as promptStats from "./areas/prompt-stats";
import * as prompts from "./areas/prompts";
import * as replay from "./areas/replay";
import * as reviews from "./areas/reviews";
import * as scores from "./areas/scores";
import * as shell from "./areas/shell";
import * as skills from "./areas/skills";
import * as tables from "./areas/tables";
import * as views from "./areas/views";
import * as webFetch from "./areas/web-fetch";

export const en = {
  ...account.en,
  ...admin.en,
  ...alerts.en,
  ...charts.en,
  ...context.en,
  ...cost.en,
  ...drawer.en,
  ...evals.en,
  ...governance.en,
  ...guardrails.en,
  ...home.en,
  ...keys.en,
  ...keyLifecycle.en,
  ...limits.en,
  ...login.en,
  ...mcp.en,
  ...mcpKeys.en,
  ...nav.en,
  ...filters.en,
  ...promptStats.en,
  ...prompts.en,
  ...replay.en,
  ...reviews.en,
  ...scores.en,
  ...shell.en,
  ...skills.en,
  ...tables.en,
  ...views.en,
  ...webFetch.en,
  ...codeRun.en,
} as const;

export type MessageKey = keyof typeof en;

export const zh: Record<MessageKey, string> = {
  ...account.zh,
  ...admin.zh,
  ...alerts.zh,
  ...charts.zh,
  ...context.zh,
  ...cost.zh,
  ...drawer.zh,
  ...evals.zh,
  ...governance.zh,
  ...guardrails.zh,
  ...home.zh,
  ...keys.zh,
  ...keyLifecycle.zh,
  ...limits.zh,
  ...login.zh,
  ...mcp.zh,
  ...mcpKeys.zh,
  ...nav.zh,
  ...filters.zh,
  ...promptStats.zh,
  ...prompts.zh,
  ...replay.zh,
  ...reviews.zh,
  ...scores.zh,
  ...shell.zh,
  ...skills.zh,
  ...tables.zh,
  ...views.zh,
  ...webFetch.zh,
  ...codeRun.zh,
};

export const LOCALES = ["en", "zh"] as const;
export type Locale = (typeof LOCALES)[number];
export const MESSAGES: Record<Locale, Record<MessageKey, string>> = { en, zh };

export type Translate = (key: MessageKey, vars?: Record<string, string>) => string;

export function translator(locale: Locale): Translate {
  const dict = MESSAGES[locale];
  return (key, vars) => {
    const text = dict[key] ?? en[key];
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m) : text;
  };
}

export const LOCALE_COOKIE = "tollgate-locale";
export const THEME_COOKIE = "tollgate-theme";

export function pickLocale(cookieValue: string | undefined, acceptLanguage: string | null): Locale {
  if (cookieValue === "en" || cookieValue === "zh") return cookieValue;
  return acceptLanguage?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

import Link from "next/link";
import type { ReactNode } from "react";
import { formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { Locale, Translate } from "@/lib/i18n/messages";
import type { AdminHome } from "../server";
import { BudgetLines } from "./budget-lines";
import { failureRate, Spend } from "./figures";
import { ALERTS_PAGE, costSince, LIMITS_PAGE, ledgerKey, ledgerModel, ledgerSince } from "./links";
import { LinkRow, Tile } from "./tile";

const SEVERITY_TONE = {
  info: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300",
  warning: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  critical: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
} as const;

/** A tenant admin's today: spend and budget, calls and failures, top models and keys, recent alerts. */
export function AdminHomeTiles({
  home,
  t,
  locale,
  extra,
}: {
  home: AdminHome;
  t: Translate;
  locale: Locale;
  /** Tiles the page adds after these (the review items). */
  extra?: ReactNode;
}) {
  const { today, month } = home.usage;
  const money = (v: string) => formatMoney(v, { locale });
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      <Tile
        testId="home-spend-today"
        title={t("home.spendToday")}
        href={costSince(home.today)}
        linkLabel={t("home.link.cost")}
      >
        <div className="space-y-3">
          <Spend usage={today} t={t} locale={locale} testId="home-spend-today-figure" />
          <BudgetLines limits={home.budget} t={t} testId="home-budget" />
        </div>
      </Tile>
      <Tile
        testId="home-spend-month"
        title={t("home.spendMonth")}
        href={costSince(home.monthStart)}
        linkLabel={t("home.link.cost")}
      >
        <div className="space-y-2">
          <Spend usage={month} t={t} locale={locale} testId="home-spend-month-figure" />
          <p className="text-sm text-slate-500">
            {t("home.callsCount", { count: formatCount(month.requests, { locale }) })}
          </p>
          {!home.budget && (
            <Link href={LIMITS_PAGE} className="text-xs text-indigo-700 hover:underline dark:text-indigo-300">
              {t("home.budget.set")}
            </Link>
          )}
        </div>
      </Tile>
      <Tile
        testId="home-calls"
        title={t("home.callsToday")}
        href={ledgerSince(home.today)}
        linkLabel={t("home.link.ledger")}
      >
        <p data-testid="home-calls-count" className="text-2xl font-semibold tabular-nums">
          {formatCount(today.requests, { locale })}
        </p>
        <Link
          href={ledgerSince(home.today, { failed: true })}
          data-testid="home-failures-link"
          className="mt-2 flex items-baseline gap-2 text-sm hover:underline"
        >
          <span data-testid="home-failure-rate" className="font-semibold tabular-nums">
            {failureRate(today)}
          </span>
          <span className="text-slate-600 dark:text-slate-300">
            {t("home.failedOf", {
              failed: formatCount(today.failures, { locale }),
              calls: formatCount(today.requests, { locale }),
            })}
          </span>
        </Link>
      </Tile>
      <Tile
        testId="home-models"
        title={t("home.topModels")}
        href={costSince(home.today)}
        linkLabel={t("home.link.cost")}
      >
        {home.topModels.length ? (
          <ol className="space-y-0.5">
            {home.topModels.map((m) => (
              <LinkRow
                key={m.model}
                testId="home-model"
                href={ledgerModel(home.today, m.model)}
                name={m.model}
                figure={money(m.cost)}
              />
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-500">{t("home.noCallsToday")}</p>
        )}
      </Tile>
      <Tile
        testId="home-keys"
        title={t("home.topKeys")}
        href={costSince(home.today)}
        linkLabel={t("home.link.cost")}
      >
        {home.topKeys.length ? (
          <ol className="space-y-0.5">
            {home.topKeys.map((k) => (
              <LinkRow
                key={k.id}
                testId="home-key"
                href={ledgerKey(home.today, k.id)}
                name={k.label}
                figure={money(k.cost)}
              />
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-500">{t("home.noKeyCallsToday")}</p>
        )}
      </Tile>
      <Tile
        testId="home-alerts"
        title={t("home.alerts")}
        href={ALERTS_PAGE}
        linkLabel={t("home.link.alerts")}
      >
        <p data-testid="home-alerts-count" className="text-2xl font-semibold tabular-nums">
          {formatCount(home.alerts.count, { locale })}
          {home.alerts.capped ? "+" : ""}
        </p>
        {home.alerts.latest.length > 0 ? (
          <ul className="mt-2 space-y-1">
            {home.alerts.latest.map((a) => (
              <li key={a.id} data-testid="home-alert" className="flex min-w-0 items-baseline gap-2 text-sm">
                <span className={`shrink-0 rounded px-1.5 text-xs ${SEVERITY_TONE[a.severity]}`}>
                  {t(`home.severity.${a.severity}`)}
                </span>
                <span className="min-w-0 truncate" title={a.title}>
                  {a.title}
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-1 text-sm text-slate-500">{t("home.alerts.none")}</p>
        )}
      </Tile>
      {extra}
    </div>
  );
}

import type { ReactNode } from "react";
import { OpenConversationButton, OpenDrawerButton } from "@/features/drawer/components";
import { formatCount } from "@/lib/core/format/number";
import type { Locale, Translate } from "@/lib/i18n/messages";
import type { MemberHome, PeriodUsage } from "../server";
import { BudgetLines } from "./budget-lines";
import { Spend } from "./figures";

const CARD =
  "flex min-w-0 flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";
const HEADING = "text-xs font-semibold uppercase tracking-wide text-slate-500";

function Period(props: { title: string; usage: PeriodUsage; t: Translate; locale: Locale; testId: string }) {
  return (
    <div data-testid={props.testId} className="space-y-1">
      <h3 className="text-sm text-slate-600 dark:text-slate-300">{props.title}</h3>
      <Spend usage={props.usage} t={props.t} locale={props.locale} testId={`${props.testId}-spend`} />
      <p data-testid={`${props.testId}-calls`} className="text-sm text-slate-500">
        {props.t("home.callsCount", { count: formatCount(props.usage.requests, { locale: props.locale }) })}
      </p>
    </div>
  );
}

/** A member's today: their latest conversations (opened in the drawer), their own usage and their budget. */
export function MemberHomeTiles({
  home,
  t,
  locale,
  extra,
}: {
  home: MemberHome;
  t: Translate;
  locale: Locale;
  /** Tiles the page adds after these (a reviewer's review items). */
  extra?: ReactNode;
}) {
  const dateTime = new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en-US", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  });
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <section data-testid="home-conversations" className={CARD}>
        <h2 className={HEADING}>{t("home.member.conversations")}</h2>
        {home.conversations.length ? (
          <ul className="space-y-0.5">
            {home.conversations.map((c) => (
              <li key={c.id}>
                <OpenConversationButton
                  conversationId={c.id}
                  testId="home-conversation"
                  className="flex w-full items-baseline justify-between gap-3 rounded px-1 py-1 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-800"
                >
                  <span className="min-w-0 truncate text-indigo-700 dark:text-indigo-300" title={c.title}>
                    {c.title}
                  </span>
                  <span className="shrink-0 text-xs text-slate-500 tabular-nums">
                    {dateTime.format(c.updatedAt)} UTC
                  </span>
                </OpenConversationButton>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-500">{t("home.member.noConversations")}</p>
        )}
        <OpenDrawerButton
          testId="home-open-assistant"
          className="self-start text-sm text-indigo-700 hover:underline dark:text-indigo-300"
        >
          {t("home.member.openAssistant")} →
        </OpenDrawerButton>
      </section>
      <section data-testid="home-my-usage" className={CARD}>
        <h2 className={HEADING}>{t("home.member.usage")}</h2>
        <div className="grid grid-cols-2 gap-4">
          <Period
            title={t("home.member.today")}
            usage={home.usage.today}
            t={t}
            locale={locale}
            testId="home-my-today"
          />
          <Period
            title={t("home.member.month")}
            usage={home.usage.month}
            t={t}
            locale={locale}
            testId="home-my-month"
          />
        </div>
        <BudgetLines limits={home.limits} t={t} testId="home-my-budget" />
        <p className="text-xs text-slate-500">{t("home.member.usageNote")}</p>
      </section>
      {extra}
    </div>
  );
}

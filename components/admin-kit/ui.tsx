"use client";

import { type ReactNode, useEffect, useState } from "react";
import { useI18n } from "@/components/i18n";

export const INPUT =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm aria-invalid:border-red-500 dark:border-slate-700 dark:bg-slate-900 dark:aria-invalid:border-red-500";
export const LABEL = "block text-xs font-medium text-slate-600 dark:text-slate-400";
export const BUTTON =
  "rounded-md border border-slate-300 px-3 py-1.5 text-sm whitespace-nowrap hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800";
export const PRIMARY =
  "rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium whitespace-nowrap text-white hover:bg-indigo-700 disabled:cursor-not-allowed disabled:opacity-50 dark:bg-indigo-500 dark:hover:bg-indigo-400";
export const DANGER =
  "rounded-md bg-red-600 px-3 py-1.5 text-sm font-medium whitespace-nowrap text-white hover:bg-red-700 disabled:cursor-not-allowed disabled:opacity-50";
/** BUTTON and DANGER in the small size of a dense table's row actions. */
export const BUTTON_SM =
  "rounded-md border border-slate-300 px-2 py-0.5 text-xs whitespace-nowrap hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 aria-expanded:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800 dark:aria-expanded:bg-slate-800";
export const DANGER_SM =
  "rounded-md bg-red-600 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-white hover:bg-red-700 disabled:cursor-not-allowed disabled:opacity-50";
export const CARD = "rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900";

/** A titled block of the page. */
export function Section(props: { title: string; lead?: string; testId?: string; children: ReactNode }) {
  return (
    <section data-testid={props.testId} className={`${CARD} min-w-0 space-y-4 p-4`}>
      <header className="space-y-1">
        <h2 className="font-semibold">{props.title}</h2>
        {props.lead && <p className="text-sm text-slate-600 dark:text-slate-300">{props.lead}</p>}
      </header>
      {props.children}
    </section>
  );
}

/**
 * The server's messages for one field, said under it (`id` is what the input's aria-describedby names): one line,
 * or with `list` one item per message.
 */
export function FieldError({
  id,
  messages,
  field,
  list,
}: {
  id: string;
  messages?: string[];
  field: string;
  list?: boolean;
}) {
  if (!messages?.length) return null;
  if (list)
    return (
      <ul
        id={id}
        data-testid={`field-error-${field}`}
        className="mt-1 space-y-0.5 text-xs text-red-700 dark:text-red-300"
      >
        {messages.map((m) => (
          <li key={m}>{m}</li>
        ))}
      </ul>
    );
  return (
    <p id={id} data-testid={`field-error-${field}`} className="mt-1 text-xs text-red-700 dark:text-red-300">
      {messages.join(" ")}
    </p>
  );
}

/** A failed request, said where its result would be. */
export function ErrorNote({ message, testId = "gov-error" }: { message: string; testId?: string }) {
  const { t } = useI18n();
  return (
    <p
      role="alert"
      data-testid={testId}
      className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm break-words text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      {t("gov.error", { message })}
    </p>
  );
}

/** "Saved", shown for a few seconds after a save (`at` changes on every save, so a second save shows it again). */
export function SavedNote({ at }: { at: number | null }) {
  const { t } = useI18n();
  const [shownFor, setShownFor] = useState<number | null>(null);
  useEffect(() => {
    if (at === null) return;
    setShownFor(at);
    const timer = setTimeout(() => setShownFor(null), 4000);
    return () => clearTimeout(timer);
  }, [at]);
  return (
    <span role="status" data-testid="saved-note" className="text-sm text-emerald-700 dark:text-emerald-300">
      {shownFor !== null && at === shownFor ? `✓ ${t("gov.saved")}` : ""}
    </span>
  );
}

const TONES = {
  green: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  slate: "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200",
  indigo: "bg-indigo-100 text-indigo-800 dark:bg-indigo-900/50 dark:text-indigo-200",
  amber: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-100",
} as const;

export function Pill({
  tone,
  children,
  testId,
}: {
  tone: keyof typeof TONES;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <span
      data-testid={testId}
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/** A timestamp in the reader's language, the exact instant on hover; `fallback` when there is none. */
export function DateText({ value, fallback }: { value: string | null; fallback: string }) {
  const { locale } = useI18n();
  if (!value) return <span className="text-slate-500 dark:text-slate-400">{fallback}</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  const text = new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en-US", {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(date);
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {text}
    </time>
  );
}

export type FieldMessages = Record<string, string[]>;

/** The server's messages for a field, including its items' ("cacheAliases.0"). */
export const messagesOf = (fields: FieldMessages, name: string): string[] =>
  Object.entries(fields)
    .filter(([key]) => key === name || key.startsWith(`${name}.`))
    .flatMap(([, messages]) => messages);

/** Messages for fields the form has no input for ("(body)", "subjectId"), so none is dropped unseen. */
export const otherMessages = (fields: FieldMessages, shown: readonly string[]): string[] =>
  Object.entries(fields)
    .filter(([key]) => !shown.some((name) => key === name || key.startsWith(`${name}.`)))
    .map(([key, messages]) => `${key}: ${messages.join(" ")}`);

/** Said where a page needs a tenant and the viewer (the super admin on "All tenants") has none chosen. */
export function ChooseTenantNote({ message }: { message: string }) {
  return (
    <p
      data-testid="choose-tenant"
      className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/30 dark:text-amber-100"
    >
      {message}
    </p>
  );
}

/** The look-back of a stats table: the last 7, 30 or 90 days. */
export const STATS_DAYS = [7, 30, 90] as const;

/** "Period: last N days", the stats tables' one control. */
export function DaysSelect(props: { value: number; onChange: (days: number) => void }) {
  const { t } = useI18n();
  return (
    <label className="inline-block">
      <span className={LABEL}>{t("promptStats.days")}</span>
      <select className={INPUT} value={props.value} onChange={(e) => props.onChange(Number(e.target.value))}>
        {STATS_DAYS.map((d) => (
          <option key={d} value={d}>
            {t("promptStats.lastDays", { days: String(d) })}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The grey block a table shows while its first answer loads. */
export function LoadingBlock() {
  return <div className="mt-3 h-24 animate-pulse rounded bg-slate-100 dark:bg-slate-800" aria-busy="true" />;
}

"use client";

import Big from "big.js";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { BUTTON, ErrorNote, messagesOf, otherMessages, PRIMARY, SavedNote } from "@/components/admin-kit/ui";
import { explainFieldsOrMessage, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import { formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { MessageKey } from "@/lib/i18n/messages";
import { limitsApi } from "../client";
import type { LimitScope, LimitValues, LimitView } from "../contracts";
import { BudgetMeter } from "./budget-meter";

type Field = keyof LimitValues;
type Draft = Record<Field, string>;

const INTEGER_FIELDS = ["requestsPerMinute", "tokensPerMinute"] as const;
const FIELDS: Field[] = [
  "requestsPerMinute",
  "tokensPerMinute",
  "dailySoftUsd",
  "dailyHardUsd",
  "monthlySoftUsd",
  "monthlyHardUsd",
];
const LABELS: Record<Field, MessageKey> = {
  requestsPerMinute: "gov.limits.rpm",
  tokensPerMinute: "gov.limits.tpm",
  dailySoftUsd: "gov.limits.soft",
  dailyHardUsd: "gov.limits.hard",
  monthlySoftUsd: "gov.limits.soft",
  monthlyHardUsd: "gov.limits.hard",
};

/** The stored values as the inputs show them; amounts without the database's trailing zeros ("25.0000000000"). */
const draftOf = (limits: LimitValues | null): Draft =>
  Object.fromEntries(FIELDS.map((f) => [f, shown(limits?.[f] ?? null)])) as Draft;

function shown(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  try {
    return new Big(value).toFixed();
  } catch {
    return value;
  }
}

const isInteger = (f: Field) => (INTEGER_FIELDS as readonly Field[]).includes(f);

/**
 * Reads the draft: empty means no limit; the per-minute fields must be whole numbers (said here, before a
 * request); amounts go to the server as typed, which validates them and the soft ≤ hard rule.
 */
function parseDraft(draft: Draft): { values: LimitValues; notWhole: Field[] } {
  const notWhole: Field[] = [];
  const text = (field: Field) => draft[field].trim().replace(/^\$/, "");
  const amount = (field: Field) => text(field) || null;
  const perMinute = (field: Field) => {
    const value = text(field);
    if (value === "") return null;
    if (/^\d+$/.test(value)) return Number(value);
    notWhole.push(field);
    return null;
  };
  return {
    values: {
      requestsPerMinute: perMinute("requestsPerMinute"),
      tokensPerMinute: perMinute("tokensPerMinute"),
      dailySoftUsd: amount("dailySoftUsd"),
      dailyHardUsd: amount("dailyHardUsd"),
      monthlySoftUsd: amount("monthlySoftUsd"),
      monthlyHardUsd: amount("monthlyHardUsd"),
    },
    notWhole,
  };
}

/**
 * The rate limits and budgets of one scope (the tenant, an API key or a member), with what the budgets have
 * spent so far. The tenant's form, each key's and each member's are this one form.
 */
export function LimitsForm(props: {
  scope: LimitScope;
  subjectId?: string;
  /** A template's values carry no spend (each end user's is their own): no meter is shown for it. */
  limits: LimitView | LimitValues | null;
  /** Called after a save; the parent reloads, so the spend shown is the server's. */
  onSaved: () => void;
  onClose?: () => void;
  testId: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.limits));
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainFieldsOrMessage);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  const save = async (next: Draft) => {
    const { values, notWhole } = parseDraft(next);
    reset(Object.fromEntries(notWhole.map((f) => [f, [t("gov.limits.wholeNumber")]])));
    if (notWhole.length) return;
    await submit(async () => {
      await limitsApi.saveLimits(props.scope, props.subjectId, values);
      setSavedAt(Date.now());
      props.onSaved();
    });
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void save(draft);
  };

  const removeAll = () => {
    const empty = draftOf(null);
    setDraft(empty);
    void save(empty);
  };

  const input = (field: Field) => (
    <TextField
      id={id}
      name={field}
      testId={`limit-${field}`}
      label={t(LABELS[field])}
      inputMode={isInteger(field) ? "numeric" : "decimal"}
      placeholder={t("gov.limits.none")}
      value={draft[field]}
      messages={messagesOf(fields, field)}
      onChange={(value) => setDraft((d) => ({ ...d, [field]: value }))}
      controlClassName="tabular-nums"
    />
  );

  const group = (legend: string, children: ReactNode) => (
    <fieldset className="min-w-0 space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700">
      <legend className="px-1 text-sm font-medium">{legend}</legend>
      {children}
    </fieldset>
  );

  const hasLimits = props.limits !== null;
  // Spend is only counted while a scope has a budget, so without one there is no figure worth showing; a
  // template's spend is each end user's, shown in the top end users instead.
  const spend = props.limits !== null && "spentToday" in props.limits ? props.limits : null;
  const budgeted =
    spend !== null &&
    [spend.dailySoftUsd, spend.dailyHardUsd, spend.monthlySoftUsd, spend.monthlyHardUsd].some(
      (v) => v !== null,
    );
  const other = otherMessages(fields, FIELDS);
  return (
    <form
      noValidate
      data-testid={props.testId}
      onSubmit={onSubmit}
      aria-busy={saving}
      className="@container min-w-0 space-y-3"
    >
      <div className="grid gap-3 @2xl:grid-cols-3">
        {group(
          t("gov.limits.rate"),
          <div className="grid grid-cols-2 gap-2">
            {input("requestsPerMinute")}
            {input("tokensPerMinute")}
          </div>,
        )}
        {group(
          t("gov.limits.daily"),
          <>
            <div className="grid grid-cols-2 gap-2">
              {input("dailySoftUsd")}
              {input("dailyHardUsd")}
            </div>
            {budgeted && spend && (
              <BudgetMeter
                testId="spent-today"
                label={t("gov.limits.spentToday")}
                spent={spend.spentToday}
                soft={spend.dailySoftUsd}
                hard={spend.dailyHardUsd}
              />
            )}
          </>,
        )}
        {group(
          t("gov.limits.monthly"),
          <>
            <div className="grid grid-cols-2 gap-2">
              {input("monthlySoftUsd")}
              {input("monthlyHardUsd")}
            </div>
            {budgeted && spend && (
              <BudgetMeter
                testId="spent-month"
                label={t("gov.limits.spentMonth")}
                spent={spend.spentThisMonth}
                soft={spend.monthlySoftUsd}
                hard={spend.monthlyHardUsd}
              />
            )}
          </>,
        )}
      </div>
      {other.length > 0 && <ErrorNote message={other.join(" ")} />}
      {formError && <ErrorNote message={formError} />}
      <p className="text-xs text-slate-500 dark:text-slate-400">{t("gov.limits.hint")}</p>
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" data-testid="limits-save" disabled={saving} className={PRIMARY}>
          {saving ? t("gov.saving") : t("gov.save")}
        </button>
        {hasLimits && (
          <button
            type="button"
            data-testid="limits-remove"
            disabled={saving}
            onClick={removeAll}
            className={BUTTON}
          >
            {t("gov.limits.removeAll")}
          </button>
        )}
        {props.onClose && (
          <button type="button" data-testid="limits-close" onClick={props.onClose} className={BUTTON}>
            {t("gov.close")}
          </button>
        )}
        <SavedNote at={savedAt} />
      </div>
    </form>
  );
}

/** One line for a table: "60 req/min · $5.00/day (hard)", or "No limits". */
export function limitsSummary(limits: LimitValues | null, t: ReturnType<typeof useI18n>["t"]): string {
  if (!limits) return t("gov.limits.noneSet");
  const parts: string[] = [];
  if (limits.requestsPerMinute !== null)
    parts.push(t("gov.limits.rpmShort", { n: formatCount(limits.requestsPerMinute) }));
  if (limits.tokensPerMinute !== null)
    parts.push(t("gov.limits.tpmShort", { n: formatCount(limits.tokensPerMinute) }));
  const budget = (soft: string | null, hard: string | null, key: MessageKey) => {
    if (hard !== null) parts.push(t(key, { amount: formatMoney(hard) }));
    else if (soft !== null)
      parts.push(`${t(key, { amount: formatMoney(soft) })} ${t("gov.limits.softOnly")}`);
  };
  budget(limits.dailySoftUsd, limits.dailyHardUsd, "gov.limits.perDay");
  budget(limits.monthlySoftUsd, limits.monthlyHardUsd, "gov.limits.perMonth");
  return parts.length ? parts.join(" · ") : t("gov.limits.noneSet");
}

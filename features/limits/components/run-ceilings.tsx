"use client";

import Big from "big.js";
import { type FormEvent, Fragment, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import {
  BUTTON,
  BUTTON_SM,
  CARD,
  ErrorNote,
  messagesOf,
  otherMessages,
  PRIMARY,
  SavedNote,
} from "@/components/admin-kit/ui";
import { explainFieldsOrMessage, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { MessageKey } from "@/lib/i18n/messages";
import { limitsApi } from "../client";
import type { RunCeilingValues } from "../contracts";

type Field = keyof RunCeilingValues;
const FIELDS: Field[] = ["maxUsd", "maxCalls", "maxTokens", "maxSeconds"];
const LABELS: Record<Field, MessageKey> = {
  maxUsd: "gov.runs.maxUsd",
  maxCalls: "gov.runs.maxCalls",
  maxTokens: "gov.runs.maxTokens",
  maxSeconds: "gov.runs.maxSeconds",
};
// Narrower padding on a phone, so the three columns fit 360 px without scrolling sideways.
const TH = "px-2 py-2 text-left font-medium whitespace-nowrap sm:px-3";
const TD = "px-2 py-2 align-middle sm:px-3";

const shown = (value: string | number | null) =>
  value === null ? "" : typeof value === "number" ? String(value) : new Big(value).toFixed();

/** "$2.00 · 50 calls · 600 s", "—" when none is set. */
function summary(c: RunCeilingValues | null, t: ReturnType<typeof useI18n>["t"]): string {
  if (!c) return "—";
  const parts = [
    c.maxUsd !== null ? formatMoney(c.maxUsd) : null,
    c.maxCalls !== null ? t("gov.runs.callsShort", { n: formatCount(c.maxCalls) }) : null,
    c.maxTokens !== null ? t("gov.runs.tokensShort", { n: formatCount(c.maxTokens) }) : null,
    c.maxSeconds !== null ? t("gov.runs.secondsShort", { n: formatCount(c.maxSeconds) }) : null,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "—";
}

/** The four ceilings of the tenant or of one key: empty is none; the server validates and names a bad field. */
function RunCeilingsForm(props: {
  subjectId?: string;
  ceilings: RunCeilingValues | null;
  onSaved: () => void;
  onClose?: () => void;
  testId: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const [draft, setDraft] = useState<Record<Field, string>>(
    () =>
      Object.fromEntries(FIELDS.map((f) => [f, shown(props.ceilings?.[f] ?? null)])) as Record<Field, string>,
  );
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainFieldsOrMessage);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const text = (f: Field) => draft[f].trim().replace(/^\$/, "");
    const notWhole = (["maxCalls", "maxTokens", "maxSeconds"] as const).filter(
      (f) => text(f) !== "" && !/^\d+$/.test(text(f)),
    );
    reset(Object.fromEntries(notWhole.map((f) => [f, [t("gov.limits.wholeNumber")]])));
    if (notWhole.length) return;
    const count = (f: Field) => (text(f) === "" ? null : Number(text(f)));
    await submit(async () => {
      await limitsApi.saveRunCeilings(props.subjectId ? "key" : "tenant", props.subjectId, {
        maxUsd: text("maxUsd") || null,
        maxCalls: count("maxCalls"),
        maxTokens: count("maxTokens"),
        maxSeconds: count("maxSeconds"),
      });
      setSavedAt(Date.now());
      props.onSaved();
    });
  };

  const other = otherMessages(fields, FIELDS);
  return (
    <form
      noValidate
      data-testid={props.testId}
      onSubmit={onSubmit}
      aria-busy={saving}
      className="min-w-0 space-y-3"
    >
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        {FIELDS.map((field) => (
          <TextField
            key={field}
            id={id}
            name={field}
            testId={`run-${field}`}
            label={t(LABELS[field])}
            inputMode={field === "maxUsd" ? "decimal" : "numeric"}
            placeholder={t("gov.limits.none")}
            value={draft[field]}
            messages={messagesOf(fields, field)}
            onChange={(value) => setDraft((d) => ({ ...d, [field]: value }))}
            controlClassName="tabular-nums"
          />
        ))}
      </div>
      {other.length > 0 && <ErrorNote message={other.join(" ")} />}
      {formError && <ErrorNote message={formError} />}
      <p className="text-xs text-slate-500 dark:text-slate-400">{t("gov.runs.hint")}</p>
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" data-testid="run-ceilings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("gov.saving") : t("gov.save")}
        </button>
        {props.onClose && (
          <button type="button" onClick={props.onClose} className={BUTTON}>
            {t("gov.close")}
          </button>
        )}
        <SavedNote at={savedAt} />
      </div>
    </form>
  );
}

const loadCeilings = (signal: AbortSignal) => limitsApi.runCeilings(signal);

/** The Limits page's run ceilings: the tenant's form, and each key's ceilings with a form to edit them. */
export function RunCeilings() {
  const { t } = useI18n();
  const { data, error, loading, reload } = useLoad(loadCeilings);
  const [open, setOpen] = useState<string | null>(null);
  if (!data)
    return error ? (
      <ErrorNote message={error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("gov.loading")}</p>
    );
  return (
    <div className="space-y-4">
      {error && <ErrorNote message={error.message} />}
      <RunCeilingsForm testId="tenant-run-ceilings-form" ceilings={data.tenant} onSaved={reload} />
      <h3 className="text-sm font-medium">{t("gov.runs.keys")}</h3>
      <div className={`${CARD} overflow-x-auto`}>
        <table aria-busy={loading} data-testid="key-run-ceilings" className="min-w-full text-sm">
          <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              <th scope="col" className={TH}>
                {t("gov.runs.key")}
              </th>
              <th scope="col" className={TH}>
                {t("gov.runs.title")}
              </th>
              <th scope="col" className={TH}>
                <span className="sr-only">{t("gov.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {data.keys.map((key) => (
              <Fragment key={key.id}>
                <tr data-testid="key-run-ceiling-row" data-key-id={key.id}>
                  <td className={`${TD} max-w-[7rem] truncate sm:max-w-xs`} title={key.name}>
                    {key.name} <span className="hidden text-xs text-slate-500 sm:inline">{key.prefix}…</span>
                  </td>
                  <td className={`${TD} tabular-nums`}>{summary(key.ceilings, t)}</td>
                  <td className={`${TD} text-right`}>
                    <button
                      type="button"
                      aria-expanded={open === key.id}
                      aria-label={t("gov.runs.editOf", { name: key.name })}
                      onClick={() => setOpen((o) => (o === key.id ? null : key.id))}
                      className={BUTTON_SM}
                    >
                      {t("gov.runs.edit")}
                    </button>
                  </td>
                </tr>
                {open === key.id && (
                  <tr>
                    <td colSpan={3} className="bg-slate-50 px-3 py-3 dark:bg-slate-950/40">
                      <p className="mb-2 text-sm font-medium">
                        {t("gov.runs.ceilingsOf", { name: key.name })}
                      </p>
                      <RunCeilingsForm
                        testId="key-run-ceilings-form"
                        subjectId={key.id}
                        ceilings={key.ceilings}
                        onSaved={reload}
                        onClose={() => setOpen(null)}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
            {data.keys.length === 0 && (
              <tr>
                <td colSpan={3} className="px-3 py-6 text-center text-slate-500 dark:text-slate-400">
                  {t("gov.runs.noKeys")}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

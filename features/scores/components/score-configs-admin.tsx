"use client";

import { useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { BUTTON, CARD, ErrorNote, messagesOf, Pill, PRIMARY, Section } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { scoreConfigsApi } from "../client";
import { SCORE_TYPES, type ScoreConfigView, type ScoreType } from "../contracts";

type Draft = {
  name: string;
  type: ScoreType;
  min: string;
  max: string;
  categories: string;
  description: string;
};
const EMPTY: Draft = { name: "", type: "numeric", min: "", max: "", categories: "", description: "" };
const SHOWN = ["name", "type", "min", "max", "categories", "description"];

/** A number field's value: undefined when empty, NaN when it is not a number (the form says so). */
const numberOf = (text: string) => (text.trim() === "" ? undefined : Number(text.trim()));

/** What a config allows, in one line: its range, its categories, or true / false. */
function allowed(c: ScoreConfigView, t: ReturnType<typeof useI18n>["t"]): string {
  if (c.type === "boolean") return t("sc.allowed.boolean");
  if (c.type === "categorical") return c.categories.join(" · ");
  if (c.min === null && c.max === null) return t("sc.allowed.any");
  return `${c.min ?? "−∞"} … ${c.max ?? "∞"}`;
}

/** The tenant's score configs: each with what it allows and an Archive, and a form to create one. */
export function ScoreConfigsAdmin() {
  const { t } = useI18n();
  const configs = useLoad((signal) => scoreConfigsApi.list(signal));
  const [adding, setAdding] = useState(false);
  const [asking, setAsking] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const archive = async (id: string) => {
    setActionError(null);
    try {
      await scoreConfigsApi.archive(id);
      setAsking(null);
      configs.reload();
    } catch (error) {
      setActionError(toApiError(error).message);
    }
  };

  return (
    <Section title={t("sc.configs.title")} lead={t("sc.configs.lead")} testId="sc-configs">
      {actionError && <ErrorNote message={actionError} />}
      {configs.error && <ErrorNote message={configs.error.message} />}
      {configs.data && !configs.data.configs.length && !adding && (
        <p data-testid="sc-configs-empty" className="text-sm text-slate-500">
          {t("sc.configs.empty")}
        </p>
      )}
      <ul data-testid="sc-config-list" className="min-w-0 space-y-2">
        {configs.data?.configs.map((c) => (
          <li
            key={c.id}
            data-testid="sc-config"
            data-config-name={c.name}
            className={`${CARD} min-w-0 space-y-1 p-3 ${c.archivedAt ? "opacity-70" : ""}`}
          >
            <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
              <span className="min-w-0 font-mono text-sm font-medium break-all">{c.name}</span>
              <Pill tone="slate">{t(`sc.type.${c.type}`)}</Pill>
              {c.archivedAt && <Pill tone="amber">{t("sc.archived")}</Pill>}
            </div>
            <p
              data-testid="sc-config-allowed"
              className="text-sm break-words text-slate-600 dark:text-slate-300"
            >
              {allowed(c, t)}
            </p>
            {c.description && <p className="text-xs break-words text-slate-500">{c.description}</p>}
            {!c.archivedAt && (
              <div className="flex flex-wrap gap-2 pt-1">
                <InlineConfirm
                  small
                  asking={asking === c.id}
                  onAsk={() => setAsking(c.id)}
                  onCancel={() => setAsking(null)}
                  onConfirm={() => void archive(c.id)}
                  action={{
                    label: t("sc.archive"),
                    ariaLabel: t("sc.archiveOf", { name: c.name }),
                    testId: "sc-config-archive",
                  }}
                  confirm={{ label: t("sc.archiveConfirm"), testId: "sc-config-archive-confirm" }}
                  cancelTestId="sc-config-archive-cancel"
                  warning={t("sc.archiveWarning")}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      {adding ? (
        <ConfigForm
          onCancel={() => setAdding(false)}
          onSaved={() => {
            setAdding(false);
            configs.reload();
          }}
        />
      ) : (
        <button type="button" data-testid="sc-config-add" className={BUTTON} onClick={() => setAdding(true)}>
          {t("sc.add")}
        </button>
      )}
    </Section>
  );
}

function ConfigForm(props: { onCancel: () => void; onSaved: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const [d, setD] = useState<Draft>(EMPTY);
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setD((prev) => ({ ...prev, [key]: value }));
  const save = () => {
    const min = d.type === "numeric" ? numberOf(d.min) : undefined;
    const max = d.type === "numeric" ? numberOf(d.max) : undefined;
    const own: Record<string, string[]> = {};
    if (Number.isNaN(min)) own.min = [t("sc.notNumber")];
    if (Number.isNaN(max)) own.max = [t("sc.notNumber")];
    reset(own);
    if (Object.keys(own).length) return;
    const categories =
      d.type === "categorical"
        ? d.categories
            .split(",")
            .map((c) => c.trim())
            .filter(Boolean)
        : undefined;
    void submit(async () => {
      await scoreConfigsApi.create({
        name: d.name,
        type: d.type,
        min,
        max,
        categories,
        description: d.description || undefined,
      });
      props.onSaved();
    });
  };

  return (
    <form
      data-testid="sc-config-form"
      className={`${CARD} min-w-0 space-y-3 p-3`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <h3 className="font-medium">{t("sc.new")}</h3>
      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        <TextField
          id={id}
          name="name"
          label={t("sc.f.name")}
          hint={t("sc.f.nameHint")}
          value={d.name}
          onChange={(v) => set("name", v)}
          messages={messagesOf(fields, "name")}
        />
        <SelectField
          id={id}
          name="type"
          label={t("sc.f.type")}
          value={d.type}
          onChange={(v) => set("type", v as ScoreType)}
          messages={messagesOf(fields, "type")}
        >
          {SCORE_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`sc.type.${type}`)}
            </option>
          ))}
        </SelectField>
        {d.type === "numeric" && (
          <>
            <TextField
              id={id}
              name="min"
              label={t("sc.f.min")}
              inputMode="decimal"
              value={d.min}
              onChange={(v) => set("min", v)}
              messages={messagesOf(fields, "min")}
            />
            <TextField
              id={id}
              name="max"
              label={t("sc.f.max")}
              inputMode="decimal"
              value={d.max}
              onChange={(v) => set("max", v)}
              messages={messagesOf(fields, "max")}
            />
          </>
        )}
        {d.type === "categorical" && (
          <TextField
            id={id}
            name="categories"
            label={t("sc.f.categories")}
            hint={t("sc.f.categoriesHint")}
            value={d.categories}
            onChange={(v) => set("categories", v)}
            messages={messagesOf(fields, "categories")}
          />
        )}
        <TextField
          id={id}
          name="description"
          label={t("sc.f.description")}
          value={d.description}
          onChange={(v) => set("description", v)}
          messages={messagesOf(fields, "description")}
        />
      </div>
      {formError && <ErrorNote message={formError} />}
      <div className="flex flex-wrap gap-2">
        <button type="submit" data-testid="sc-config-save" disabled={saving} className={PRIMARY}>
          {t("sc.save")}
        </button>
        <button type="button" data-testid="sc-config-cancel" onClick={props.onCancel} className={BUTTON}>
          {t("sc.cancel")}
        </button>
      </div>
    </form>
  );
}

"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { FilterDef } from "@/features/admin-tables/contracts";
import {
  chipParams,
  chipsFrom,
  type FilterChip,
  type Operator,
  operatorsFor,
  parseDecimal,
} from "@/features/admin-tables/filter-operators";
import { FilterChips, filterLabel, TENANT_FILTER } from "./filter-chips";
import { FilterSearch } from "./filter-search-box";
import { pick } from "./format";
import { SuggestInput } from "./suggest-input";
import { ALL_PRESETS, presetRange } from "./time-presets";

const INPUT =
  "w-full min-w-0 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";
const LABEL = "block text-xs font-medium text-slate-600 dark:text-slate-400";
const BUTTON = "rounded-md px-2.5 py-1 text-sm font-medium";
const PRESET =
  "rounded-full border border-slate-300 px-2 py-0.5 text-xs whitespace-nowrap hover:bg-indigo-50 hover:text-indigo-700 dark:border-slate-700 dark:hover:bg-slate-800 dark:hover:text-indigo-300";

/** A date input shows a day; a preset's ISO time is kept in the draft (and the chip) but not shown there. */
const asDay = (value: string | undefined) => (value && value.length >= 10 ? value.slice(0, 10) : "");

/** What the editor holds: the field, operator and value(s), and the chip it edits (its URL names are replaced). */
type Draft = { field: string; op: Operator; value: string; value2: string; editing?: FilterChip };

/**
 * The schema pages' filter bar: a search box into the filters, "Add filter" (field → operator → value in a small
 * popover), the time presets, the active filters as chips (click to edit, × to remove) and Clear all. Every change
 * is one URL change (use-page-query), so Back restores the previous filters.
 */
export function FilterBuilder(props: {
  schemaKey: string;
  filters: FilterDef[];
  superAdmin: boolean;
  values: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
  onClear: () => void;
}) {
  const { t, locale } = useI18n();
  const addRef = useRef<HTMLButtonElement>(null);
  const defs = useMemo<FilterDef[]>(() => {
    const label = t("tenant.label");
    return props.superAdmin
      ? [
          ...props.filters,
          { field: TENANT_FILTER, label: { en: label, zh: label }, type: "text", suggest: true },
        ]
      : props.filters;
  }, [props.filters, props.superAdmin, t]);
  const chips = useMemo(() => chipsFrom(props.values, defs), [props.values, defs]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const time = defs.find((f) => f.type === "daterange");

  const open = (chip?: FilterChip, field?: string) => {
    if (chip)
      setDraft({
        field: chip.field,
        op: chip.op,
        value: chip.value,
        value2: chip.value2 ?? "",
        editing: chip,
      });
    else {
      const f = field ?? "";
      setDraft({ field: f, op: operatorsFor(defs.find((d) => d.field === f))[0]!, value: "", value2: "" });
    }
  };
  const close = () => {
    setDraft(null);
    addRef.current?.focus();
  };

  return (
    <section
      aria-label={t("filters.bar")}
      data-testid="filter-bar"
      className="relative flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-white p-2 dark:border-slate-800 dark:bg-slate-900"
    >
      <FilterSearch
        schemaKey={props.schemaKey}
        filters={defs}
        onApply={props.onApply}
        className="w-full sm:w-56"
      />
      <button
        ref={addRef}
        type="button"
        data-testid="filter-add"
        aria-haspopup="dialog"
        aria-expanded={draft !== null}
        onClick={() => (draft ? close() : open())}
        className={`${BUTTON} border border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800`}
      >
        + {t("filters.add")}
      </button>
      {time && (
        <fieldset
          aria-label={t("tables.presets")}
          className="m-0 flex min-w-0 flex-wrap items-center gap-1 border-0 p-0"
        >
          {((time.type === "daterange" && time.presets) || ALL_PRESETS).map((preset) => (
            <button
              key={preset}
              type="button"
              data-testid={`preset-${time.field}-${preset}`}
              onClick={() => {
                const range = presetRange(preset, new Date());
                props.onApply({ [`${time.field}.from`]: range.from, [`${time.field}.to`]: range.to });
              }}
              className={PRESET}
            >
              {t(`tables.preset.${preset}`)}
            </button>
          ))}
          <button
            type="button"
            data-testid={`preset-${time.field}-custom`}
            onClick={() => {
              const chip = chips.find((c) => c.field === time.field);
              open(chip, time.field);
            }}
            className={PRESET}
          >
            {t("filters.custom")}
          </button>
        </fieldset>
      )}
      <FilterChips
        chips={chips}
        filters={defs}
        onEdit={(chip) => open(chip)}
        onRemove={(chip) => props.onApply(Object.fromEntries(chip.names.map((n) => [n, ""])))}
      />
      {chips.length > 0 && (
        <button
          type="button"
          data-testid="filter-clear"
          onClick={props.onClear}
          className={`${BUTTON} ml-auto text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800`}
        >
          {t("filters.clearAll")}
        </button>
      )}
      {draft && (
        <FilterEditor
          key={draft.editing?.names.join(" ") ?? "new"}
          schemaKey={props.schemaKey}
          defs={defs}
          draft={draft}
          setDraft={setDraft}
          onCancel={close}
          onApply={(values) => {
            props.onApply(values);
            close();
          }}
          locale={locale}
        />
      )}
    </section>
  );
}

/** The popover: field → operator → value → Apply. Focus moves into it; Escape or a click outside closes it. */
function FilterEditor(props: {
  schemaKey: string;
  defs: FilterDef[];
  draft: Draft;
  setDraft: (draft: Draft) => void;
  onCancel: () => void;
  onApply: (values: Record<string, string>) => void;
  locale: "en" | "zh";
}) {
  const { t } = useI18n();
  const id = useId();
  const ref = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const { draft, setDraft, locale, onCancel } = props;
  const def = props.defs.find((f) => f.field === draft.field);
  const ops = operatorsFor(def);
  const name = draft.field;

  // Focus the first thing to choose: the field for a new filter, the value when editing one.
  useEffect(() => {
    const target = ref.current?.querySelector<HTMLElement>(
      props.draft.editing ? "[data-value-input]" : "[data-field-select]",
    );
    target?.focus();
  }, [props.draft.editing]);
  useEffect(() => {
    const outside = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onCancel();
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [onCancel]);

  const set = (patch: Partial<Draft>) => {
    setProblem(null);
    setDraft({ ...draft, ...patch });
  };
  const submit = () => {
    if (!def) return setProblem(t("filters.chooseField"));
    const values = draft.op === "between" ? [draft.value, draft.value2] : [draft.value];
    if (values.every((v) => v.trim() === "")) return setProblem(t("filters.needValue"));
    if (def.type === "number" && values.some((v) => v.trim() !== "" && parseDecimal(v) === null))
      return setProblem(t("filters.needNumber"));
    props.onApply(chipParams(def, name, draft.op, draft.value, draft.value2, draft.editing?.names));
  };

  const valueInput = (which: "value" | "value2", testId: string, label: string) => {
    const value = draft[which];
    const common = {
      id: `${id}-${which}`,
      "data-testid": testId,
      "aria-label": label,
      ...(which === "value" ? { "data-value-input": true } : {}),
    };
    if (def?.type === "daterange")
      return (
        <input
          {...common}
          type="date"
          value={asDay(value)}
          onChange={(e) => set({ [which]: e.target.value })}
          className={INPUT}
        />
      );
    if (def?.type === "number")
      return (
        <input
          {...common}
          type="text"
          inputMode="decimal"
          value={value}
          onChange={(e) => set({ [which]: e.target.value })}
          className={INPUT}
        />
      );
    if (def?.type === "select")
      return (
        <select
          {...common}
          value={value}
          onChange={(e) => set({ [which]: e.target.value })}
          className={INPUT}
        >
          <option value="">{t("schema.any")}</option>
          {def.options.map((o) => (
            <option key={o.value} value={o.value}>
              {pick(o.label, locale)}
            </option>
          ))}
        </select>
      );
    if (def?.type === "text" && def.suggest)
      return (
        <SuggestInput
          schemaKey={props.schemaKey}
          field={name}
          id={common.id}
          label={label}
          value={value}
          testId={testId}
          onChange={(v) => set({ [which]: v })}
          onPick={(v) => set({ [which]: v })}
          className={INPUT}
          dataValueInput
        />
      );
    return (
      <input
        {...common}
        type="text"
        value={value}
        onChange={(e) => set({ [which]: e.target.value })}
        className={INPUT}
      />
    );
  };

  const label = filterLabel(name, def, t, locale);
  const range = draft.op === "between";
  return (
    <form
      ref={ref}
      role="dialog"
      aria-label={t("filters.editor")}
      data-testid="filter-editor"
      onKeyDown={(e) => {
        if (e.key === "Escape" && !e.defaultPrevented) {
          e.preventDefault();
          onCancel();
        }
      }}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      className="absolute top-full left-0 z-30 mt-1 w-80 max-w-[calc(100vw-1.5rem)] space-y-2 rounded-lg border border-slate-200 bg-white p-3 shadow-lg dark:border-slate-700 dark:bg-slate-900"
    >
      <div className="flex gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor={`${id}-field`} className={LABEL}>
            {t("filters.field")}
          </label>
          <select
            id={`${id}-field`}
            data-testid="filter-field"
            data-field-select
            value={draft.field}
            onChange={(e) => {
              const next = props.defs.find((f) => f.field === e.target.value);
              set({
                field: e.target.value,
                op: operatorsFor(next)[0]!,
                value: "",
                value2: "",
                editing: draft.editing,
              });
            }}
            className={INPUT}
          >
            <option value="" disabled>
              {t("filters.chooseField")}
            </option>
            {props.defs.map((f) => (
              <option key={f.field} value={f.field}>
                {pick(f.label, locale)}
              </option>
            ))}
          </select>
        </div>
        {def && ops.length > 1 && (
          <div className="w-28 shrink-0">
            <label htmlFor={`${id}-op`} className={LABEL}>
              {t("filters.operator")}
            </label>
            <select
              id={`${id}-op`}
              data-testid="filter-op"
              value={draft.op}
              onChange={(e) => set({ op: e.target.value as Operator })}
              className={INPUT}
            >
              {ops.map((op) => (
                <option key={op} value={op}>
                  {t(`filters.op.${op}`)}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      {def && (
        <div>
          <span className={LABEL}>
            {label} {t(`filters.op.${draft.op}`)}
          </span>
          {range ? (
            <div className="mt-1 flex items-center gap-1">
              {valueInput(
                "value",
                def.type === "daterange" ? `filter-${name}-from` : `filter-${name}-min`,
                `${label} ${t("filters.min")}`,
              )}
              <span aria-hidden="true">–</span>
              {valueInput(
                "value2",
                def.type === "daterange" ? `filter-${name}-to` : `filter-${name}-max`,
                `${label} ${t("filters.max")}`,
              )}
            </div>
          ) : (
            <div className="mt-1">
              {valueInput("value", `filter-${name}`, `${label} ${t(`filters.op.${draft.op}`)}`)}
            </div>
          )}
        </div>
      )}
      {problem && (
        <p role="alert" data-testid="filter-problem" className="text-xs text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <button
          type="button"
          onClick={onCancel}
          className={`${BUTTON} border border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800`}
        >
          {t("filters.cancel")}
        </button>
        <button
          type="submit"
          data-testid="filter-apply"
          className={`${BUTTON} bg-indigo-600 text-white hover:bg-indigo-700 dark:bg-indigo-500 dark:hover:bg-indigo-400`}
        >
          {t("filters.apply")}
        </button>
      </div>
    </form>
  );
}

"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import {
  BUTTON,
  CARD,
  ErrorNote,
  messagesOf,
  otherMessages,
  Pill,
  PRIMARY,
  SavedNote,
} from "@/components/admin-kit/ui";
import { explainFieldsOrMessage, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { Json } from "@/lib/client/api";
import { limitsApi } from "../client";
import type { AssumedPriceView, GovernanceSettingsAnswer } from "../contracts";

type Row = { provider: string; model: string; aliases: string[]; assumed: Json<AssumedPriceView> | null };
const FIELDS = ["input", "output", "cachedInput", "cacheWrite"] as const;
type Field = (typeof FIELDS)[number];
const LABELS = {
  input: "gov.assumed.input",
  output: "gov.assumed.output",
  cachedInput: "gov.assumed.cachedInput",
  cacheWrite: "gov.assumed.cacheWrite",
} as const;

/** The models to show: every unpriced candidate, and any model still carrying an assumed price. */
function rowsOf(data: Json<GovernanceSettingsAnswer>): Row[] {
  const rows = new Map<string, Row>();
  for (const m of data.unpricedModels) rows.set(`${m.provider}/${m.model}`, { ...m, assumed: null });
  for (const a of data.assumedPrices) {
    const key = `${a.provider}/${a.model}`;
    const row = rows.get(key) ?? { provider: a.provider, model: a.model, aliases: [], assumed: null };
    rows.set(key, { ...row, assumed: a });
  }
  return [...rows.values()];
}

function AssumedPriceForm(props: { row: Row; onSaved: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const { row } = props;
  const [draft, setDraft] = useState<Record<Field, string>>(() => ({
    input: row.assumed?.input ?? "",
    output: row.assumed?.output ?? "",
    cachedInput: row.assumed?.cachedInput ?? "",
    cacheWrite: row.assumed?.cacheWrite ?? "",
  }));
  const { fields, formError, saving, submit } = useFormSubmit(explainFieldsOrMessage);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const save = (remove: boolean) =>
    submit(async () => {
      const text = (f: Field) => draft[f].trim().replace(/^\$/, "");
      await limitsApi.saveAssumedPrice({
        provider: row.provider,
        model: row.model,
        price: remove
          ? null
          : {
              input: text("input"),
              output: text("output"),
              cachedInput: text("cachedInput") || null,
              cacheWrite: text("cacheWrite") || null,
            },
      });
      if (remove) setDraft({ input: "", output: "", cachedInput: "", cacheWrite: "" });
      setSavedAt(Date.now());
      props.onSaved();
    });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void save(false);
  };
  const other = otherMessages(
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/^price\./, ""), v])),
    [...FIELDS],
  );
  return (
    <form
      noValidate
      onSubmit={onSubmit}
      aria-busy={saving}
      data-testid="assumed-price-form"
      className="space-y-2"
    >
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        {FIELDS.map((field) => (
          <TextField
            key={field}
            id={id}
            name={field}
            testId={`assumed-${field}`}
            label={t(LABELS[field])}
            inputMode="decimal"
            placeholder={field === "input" || field === "output" ? "" : t("gov.assumed.asInput")}
            value={draft[field]}
            messages={[...messagesOf(fields, field), ...messagesOf(fields, `price.${field}`)]}
            onChange={(value) => setDraft((d) => ({ ...d, [field]: value }))}
            controlClassName="tabular-nums"
          />
        ))}
      </div>
      {other.length > 0 && <ErrorNote message={other.join(" ")} />}
      {formError && <ErrorNote message={formError} />}
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" data-testid="assumed-save" disabled={saving} className={PRIMARY}>
          {saving ? t("gov.saving") : t("gov.save")}
        </button>
        {row.assumed && (
          <button
            type="button"
            data-testid="assumed-remove"
            disabled={saving}
            onClick={() => void save(true)}
            className={BUTTON}
          >
            {t("gov.assumed.remove")}
          </button>
        )}
        <SavedNote at={savedAt} />
      </div>
    </form>
  );
}

/**
 * Models the price catalog does not know. Under a hard budget a call one of them could serve is refused until a
 * tenant admin assumes a price for it here; without a budget its calls are recorded as unpriced (cost unknown).
 */
export function AssumedPrices(props: { data: Json<GovernanceSettingsAnswer>; onSaved: () => void }) {
  const { t } = useI18n();
  const rows = rowsOf(props.data);
  if (!rows.length)
    return <p className="text-sm text-slate-600 dark:text-slate-300">{t("gov.assumed.none")}</p>;
  return (
    <ul className="space-y-3" data-testid="assumed-prices">
      {rows.map((row) => (
        <li
          key={`${row.provider}/${row.model}`}
          data-testid="assumed-price-row"
          data-model={`${row.provider}/${row.model}`}
          className={`${CARD} space-y-2 p-3`}
        >
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-sm break-all">
              {row.provider}/{row.model}
            </span>
            {row.assumed ? (
              <Pill tone="indigo">{t("gov.assumed.assumed")}</Pill>
            ) : (
              <Pill tone="amber">{t("gov.assumed.unpriced")}</Pill>
            )}
            {row.aliases.length > 0 && (
              <span className="text-xs text-slate-500 dark:text-slate-400">
                {t("gov.assumed.aliases", { aliases: row.aliases.join(", ") })}
              </span>
            )}
          </div>
          <AssumedPriceForm row={row} onSaved={props.onSaved} />
        </li>
      ))}
    </ul>
  );
}

"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { BUTTON, CARD, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { datasetHref, evalsApi } from "../client";

const NEW = "__new__";

/**
 * "Add to dataset" for one ledger turn: pick a dataset or name a new one, and the turn's messages and answer
 * become an item of it (POST …/from-turn); the result links to the dataset.
 */
export function AddToDatasetForm({ turnId, onDone }: { turnId: string; onDone?: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const datasets = useLoad((signal) => evalsApi.datasets(signal));
  const [choice, setChoice] = useState("");
  const [name, setName] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<{ id: string; name: string } | null>(null);
  const list = datasets.data ?? [];
  const selected = choice || (list.length ? list[0]!.id : NEW);

  const add = async () => {
    setSaving(true);
    setError(null);
    try {
      let target: { id: string; name: string };
      if (selected === NEW) {
        const trimmed = name.trim();
        if (!trimmed) {
          setError(t("evals.enterName"));
          return;
        }
        target = { id: (await evalsApi.createDataset({ name: trimmed, items: [] })).id, name: trimmed };
      } else target = { id: selected, name: list.find((d) => d.id === selected)?.name ?? selected };
      await evalsApi.fromTurn(target.id, turnId);
      setAdded(target);
      datasets.reload();
      setChoice(target.id);
    } catch (e) {
      setError(toApiError(e).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div data-testid="add-to-dataset" className="min-w-0 space-y-3">
      {datasets.error && <ErrorNote message={datasets.error.message} testId="add-to-dataset-load-error" />}
      <div className="flex flex-wrap items-end gap-2">
        <SelectField
          id={id}
          name="dataset"
          testId="add-to-dataset-select"
          label={t("evals.dataset")}
          value={selected}
          onChange={(value) => {
            setChoice(value);
            setAdded(null);
          }}
          className="min-w-48 flex-1"
        >
          {list.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
          <option value={NEW}>{t("evals.newDatasetOption")}</option>
        </SelectField>
        {selected === NEW && (
          <TextField
            id={id}
            name="name"
            testId="add-to-dataset-name"
            label={t("evals.newDatasetName")}
            value={name}
            onChange={setName}
            className="min-w-48 flex-1"
          />
        )}
        <button
          type="button"
          data-testid="add-to-dataset-submit"
          disabled={saving || datasets.loading}
          onClick={add}
          className={PRIMARY}
        >
          {saving ? t("evals.adding") : t("evals.addToDataset")}
        </button>
        {onDone && (
          <button type="button" onClick={onDone} className={BUTTON}>
            {t("evals.close")}
          </button>
        )}
      </div>
      {error && <ErrorNote message={error} testId="add-to-dataset-error" />}
      {added && (
        <p
          role="status"
          data-testid="add-to-dataset-done"
          className="text-sm text-emerald-700 dark:text-emerald-300"
        >
          ✓ {t("evals.addedTo")}{" "}
          <Link href={datasetHref(added.id)} className="font-medium underline">
            {added.name}
          </Link>
        </p>
      )}
    </div>
  );
}

/** The replay page's "Add to dataset" button, opening the form under it. */
export function AddToDatasetButton({ turnId }: { turnId: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        data-testid="add-to-dataset-open"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="inline-flex items-center gap-1 rounded-md border border-slate-300 px-2.5 py-1 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
      >
        + {t("evals.addToDataset")}
      </button>
      {open && (
        <div className={`${CARD} basis-full p-3`}>
          <AddToDatasetForm turnId={turnId} onDone={() => setOpen(false)} />
        </div>
      )}
    </>
  );
}

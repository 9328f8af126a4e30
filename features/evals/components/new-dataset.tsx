"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { BUTTON, CARD, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { datasetHref, evalsApi } from "../client";
import { draftsToScorers, type ScorerDraft } from "../scorer-drafts";
import { ImportItems, type ImportState, usePreview } from "./import-items";
import { ScorerBuilder } from "./scorer-builder";

/** "New dataset": a name, a description, items pasted as JSONL or CSV (previewed), and default scorers. */
export function NewDataset() {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button type="button" data-testid="new-dataset" onClick={() => setOpen(true)} className={PRIMARY}>
        {t("evals.newDataset")}
      </button>
    );
  return <NewDatasetPanel onClose={() => setOpen(false)} />;
}

function NewDatasetPanel({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const router = useRouter();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [paste, setPaste] = useState<ImportState>({ text: "", format: "jsonl" });
  const [drafts, setDrafts] = useState<ScorerDraft[]>([]);
  const [scorerErrors, setScorerErrors] = useState<{ index: number; field: string; error: string }[]>([]);
  const preview = usePreview(paste);
  const models = useLoad((signal) => evalsApi.models(signal));
  const form = useFormSubmit(explainWithFields(["name", "description"]));

  const save = () => {
    const scorers = draftsToScorers(drafts);
    setScorerErrors(scorers.ok ? [] : scorers.errors);
    if (!scorers.ok) return;
    if (preview.errors.length) {
      form.reset();
      return;
    }
    form.reset();
    void form.submit(async () => {
      const { id } = await evalsApi.createDataset({
        name,
        description: description.trim() || undefined,
        items: preview.items,
        scorers: scorers.scorers.length ? scorers.scorers : undefined,
      });
      router.push(datasetHref(id));
    });
  };

  return (
    <section data-testid="new-dataset-panel" className={`${CARD} min-w-0 space-y-4 p-4`}>
      <h2 className="font-semibold">{t("evals.newDataset")}</h2>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          id="new-dataset"
          name="name"
          label={t("evals.name")}
          value={name}
          onChange={setName}
          messages={form.fields.name}
        />
        <TextField
          id="new-dataset"
          name="description"
          label={t("evals.description")}
          value={description}
          onChange={setDescription}
          messages={form.fields.description}
        />
      </div>
      <ImportItems id="new-dataset" state={paste} onChange={setPaste} preview={preview} />
      <ScorerBuilder
        id="new-dataset"
        drafts={drafts}
        onChange={setDrafts}
        models={models.data?.models ?? []}
        errors={scorerErrors}
        emptyHint={t("evals.defaultScorersHint")}
      />
      {form.formError && <ErrorNote message={form.formError} testId="new-dataset-error" />}
      {preview.errors.length > 0 && (
        <p className="text-sm text-red-700 dark:text-red-300">{t("evals.fixLines")}</p>
      )}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          data-testid="new-dataset-save"
          disabled={form.saving || preview.errors.length > 0}
          onClick={save}
          className={PRIMARY}
        >
          {form.saving ? t("evals.saving") : t("evals.createDataset", { n: String(preview.items.length) })}
        </button>
        <button type="button" onClick={onClose} className={BUTTON}>
          {t("evals.cancel")}
        </button>
      </div>
    </section>
  );
}

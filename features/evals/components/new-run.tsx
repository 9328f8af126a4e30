"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Field, SelectField, TextField } from "@/components/admin-kit/form";
import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { BUTTON, CARD, ErrorNote, INPUT, LABEL, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import type { ModelInfo } from "@/lib/gateway/types";
import { evalsApi, runHref } from "../client";
import { draftsToScorers, draftToTarget, type ScorerDraft, type TargetDraft } from "../scorer-drafts";
import { ScorerBuilder } from "./scorer-builder";

function TargetRow(props: {
  index: number;
  draft: TargetDraft;
  models: ModelInfo[];
  error?: string;
  onChange: (d: TargetDraft) => void;
  onRemove?: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const { draft } = props;
  return (
    <div
      data-testid="target-draft"
      className="grid gap-2 rounded-md border border-slate-200 p-2 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_8rem_6rem_auto] dark:border-slate-800"
    >
      <Field controlId={`${id}-model`} field="model" label={t("evals.model")}>
        {(wiring) => (
          <ModelAliasSelect
            {...wiring}
            data-testid="target-model"
            models={props.models}
            emptyLabel="—"
            value={draft.model}
            aria-invalid={props.error ? true : undefined}
            onChange={(model) => props.onChange({ ...draft, model })}
            className={`mt-1 ${INPUT}`}
          />
        )}
      </Field>
      <TextField
        id={id}
        name="prompt"
        testId="target-prompt"
        label={t("evals.promptOptional")}
        value={draft.prompt}
        placeholder="support/triage"
        onChange={(prompt) => props.onChange({ ...draft, prompt })}
      />
      <SelectField
        id={id}
        name="pick"
        testId="target-pick"
        label={t("evals.promptAt")}
        value={draft.pick}
        disabled={!draft.prompt.trim()}
        onChange={(pick) => props.onChange({ ...draft, pick: pick as TargetDraft["pick"] })}
      >
        <option value="latest">{t("evals.pick.latest")}</option>
        <option value="version">{t("evals.pick.version")}</option>
        <option value="label">{t("evals.pick.label")}</option>
      </SelectField>
      <TextField
        id={id}
        name="at"
        testId="target-at"
        label={draft.pick === "version" ? t("evals.pick.version") : t("evals.pick.label")}
        value={draft.at}
        disabled={!draft.prompt.trim() || draft.pick === "latest"}
        placeholder={draft.pick === "version" ? "2" : "production"}
        onChange={(at) => props.onChange({ ...draft, at })}
      />
      <div className="flex items-end">
        {props.onRemove && (
          <button
            type="button"
            data-testid="target-remove"
            onClick={props.onRemove}
            aria-label={t("evals.removeTarget")}
            title={t("evals.removeTarget")}
            className={BUTTON}
          >
            ×
          </button>
        )}
      </div>
      {props.error && (
        <p className="text-xs text-red-700 sm:col-span-5 dark:text-red-300" data-testid="target-error">
          {props.error}
        </p>
      )}
    </div>
  );
}

const emptyTarget = (model = ""): TargetDraft => ({ model, prompt: "", pick: "latest", at: "" });

/** "New run": a dataset (fixed on a dataset's page), targets, scorers and a concurrency; starts it and opens it. */
export function NewRun({ datasetId }: { datasetId?: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button
        type="button"
        data-testid="new-run"
        onClick={() => setOpen(true)}
        className={datasetId ? PRIMARY : BUTTON}
      >
        {t("evals.newRun")}
      </button>
    );
  return <NewRunPanel datasetId={datasetId} onClose={() => setOpen(false)} />;
}

function NewRunPanel(props: { datasetId?: string; onClose: () => void }) {
  const { t } = useI18n();
  const router = useRouter();
  const models = useLoad((signal) => evalsApi.models(signal));
  const datasets = useLoad((signal) => (props.datasetId ? Promise.resolve([]) : evalsApi.datasets(signal)));
  const [datasetId, setDatasetId] = useState(props.datasetId ?? "");
  const [name, setName] = useState("");
  const [targets, setTargets] = useState<TargetDraft[]>([emptyTarget()]);
  const [targetErrors, setTargetErrors] = useState<Record<number, string>>({});
  const [drafts, setDrafts] = useState<ScorerDraft[]>([]);
  const [scorerErrors, setScorerErrors] = useState<{ index: number; field: string; error: string }[]>([]);
  const [concurrency, setConcurrency] = useState("4");
  const form = useFormSubmit(explainWithFields(["datasetId", "name", "targets", "scorers", "concurrency"]));
  const list = models.data?.models ?? [];

  const start = () => {
    const checked = targets.map(draftToTarget);
    const errs: Record<number, string> = {};
    checked.forEach((c, i) => {
      if (!c.ok) errs[i] = c.error;
    });
    setTargetErrors(errs);
    const scorers = draftsToScorers(drafts);
    setScorerErrors(scorers.ok ? [] : scorers.errors);
    const n = Number(concurrency);
    const fields: Record<string, string[]> = {};
    if (!datasetId) fields.datasetId = [t("evals.chooseDataset")];
    if (!Number.isInteger(n) || n < 1 || n > 32) fields.concurrency = [t("evals.concurrencyRange")];
    form.reset(fields);
    if (Object.keys(errs).length || !scorers.ok || Object.keys(fields).length) return;
    void form.submit(async () => {
      const { id } = await evalsApi.createRun({
        datasetId,
        name: name.trim() || undefined,
        targets: checked.flatMap((c) => (c.ok ? [c.target] : [])),
        scorers: scorers.scorers.length ? scorers.scorers : undefined,
        concurrency: n,
      });
      router.push(runHref(id));
    });
  };

  return (
    <section data-testid="new-run-panel" className={`${CARD} min-w-0 space-y-4 p-4`}>
      <h2 className="font-semibold">{t("evals.newRun")}</h2>
      <div className="grid gap-3 sm:grid-cols-3">
        {!props.datasetId && (
          <SelectField
            id="new-run"
            name="datasetId"
            testId="run-dataset"
            label={t("evals.dataset")}
            value={datasetId}
            onChange={setDatasetId}
            messages={form.fields.datasetId}
          >
            <option value="">—</option>
            {(datasets.data ?? []).map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </SelectField>
        )}
        <TextField
          id="new-run"
          name="name"
          label={t("evals.runNameOptional")}
          value={name}
          onChange={setName}
          messages={form.fields.name}
        />
        <TextField
          id="new-run"
          name="concurrency"
          type="number"
          min={1}
          max={32}
          label={t("evals.concurrency")}
          value={concurrency}
          onChange={setConcurrency}
          messages={form.fields.concurrency}
        />
      </div>
      <fieldset className="min-w-0 space-y-2" data-testid="run-targets">
        <legend className={LABEL}>{t("evals.targets")}</legend>
        {targets.map((d, i) => (
          <TargetRow
            // biome-ignore lint/suspicious/noArrayIndexKey: targets have no identity beyond their place
            key={i}
            index={i}
            draft={d}
            models={list}
            error={targetErrors[i]}
            onChange={(next) => setTargets(targets.map((x, j) => (j === i ? next : x)))}
            onRemove={targets.length > 1 ? () => setTargets(targets.filter((_, j) => j !== i)) : undefined}
          />
        ))}
        <button
          type="button"
          data-testid="target-add"
          disabled={targets.length >= 10}
          onClick={() => setTargets([...targets, emptyTarget()])}
          className={BUTTON}
        >
          + {t("evals.addTarget")}
        </button>
      </fieldset>
      <ScorerBuilder
        id="new-run"
        drafts={drafts}
        onChange={setDrafts}
        models={list}
        errors={scorerErrors}
        emptyHint={t("evals.runScorersHint")}
      />
      {form.formError && <ErrorNote message={form.formError} testId="new-run-error" />}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          data-testid="new-run-start"
          disabled={form.saving}
          onClick={start}
          className={PRIMARY}
        >
          {form.saving ? t("evals.starting") : t("evals.startRun")}
        </button>
        <button type="button" onClick={props.onClose} className={BUTTON}>
          {t("evals.cancel")}
        </button>
      </div>
    </section>
  );
}

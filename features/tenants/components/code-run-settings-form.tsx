"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, LABEL, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { tenantsApi } from "../client";
import type { CodeRunSettings } from "../contracts";

const MODES = ["off", "on", "files"] as const;

/** Whether the tenant's agent may run code in the sandbox: off (the default), on, or on with the conversation's files. */
export function CodeRunSettingsForm() {
  const { t } = useI18n();
  const loaded = useLoad((signal) => tenantsApi.codeRunSettings(signal));
  return (
    <Section title={t("codeRun.title")} lead={t("codeRun.lead")} testId="code-run-settings">
      {loaded.error && <ErrorNote message={loaded.error.message} />}
      {loaded.data ? (
        <ModeForm settings={loaded.data} />
      ) : (
        !loaded.error && <p className="text-sm text-slate-500">{t("schema.loading")}</p>
      )}
    </Section>
  );
}

function ModeForm({ settings }: { settings: CodeRunSettings }) {
  const { t } = useI18n();
  const id = useId();
  const [mode, setMode] = useState(settings.mode);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const { formError, saving, reset, submit } = useFormSubmit(
    (error): Failure => ({ fields: {}, formError: error.message }),
  );

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const saved = await tenantsApi.saveCodeRunSettings({ mode });
      setMode(saved.mode);
      setSavedAt(Date.now());
    });
  };

  return (
    <form noValidate onSubmit={onSubmit} data-testid="code-run-settings-form" className="space-y-3">
      <fieldset>
        <legend className={LABEL}>{t("codeRun.mode")}</legend>
        <div className="mt-1 space-y-1">
          {MODES.map((m) => (
            <label key={m} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-mode`}
                value={m}
                data-testid={`code-run-mode-${m}`}
                checked={mode === m}
                onChange={() => setMode(m)}
              />
              {t(`codeRun.mode.${m}`)}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="flex items-center gap-3">
        <button type="submit" data-testid="code-run-settings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("admin.saving") : t("gov.save")}
        </button>
        <SavedNote at={savedAt} />
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}

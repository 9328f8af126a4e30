"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, INPUT, LABEL, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { tenantsApi } from "../client";
import type { WebFetchSettings } from "../contracts";
import { parseDomains } from "./sign-in-settings-form";

const MODES = ["off", "allowlist", "any"] as const;

/** Whether (and where) the tenant's agent may fetch web pages: off, allow-listed domains, or any public address. */
export function WebFetchSettingsForm() {
  const { t } = useI18n();
  const loaded = useLoad((signal) => tenantsApi.webFetchSettings(signal));
  return (
    <Section title={t("webFetch.title")} lead={t("webFetch.lead")} testId="web-fetch-settings">
      {loaded.error && <ErrorNote message={loaded.error.message} />}
      {loaded.data ? (
        <PolicyForm settings={loaded.data} />
      ) : (
        !loaded.error && <p className="text-sm text-slate-500">{t("schema.loading")}</p>
      )}
    </Section>
  );
}

function PolicyForm({ settings }: { settings: WebFetchSettings }) {
  const { t } = useI18n();
  const id = useId();
  const [mode, setMode] = useState(settings.mode);
  const [text, setText] = useState(settings.domains.join("\n"));
  const [messages, setMessages] = useState<string[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [saving, setSaving] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const domains = parseDomains(text);
    setSaving(true);
    setMessages([]);
    setFormError(null);
    try {
      const saved = await tenantsApi.saveWebFetchSettings({ mode, domains });
      setMode(saved.mode);
      setText(saved.domains.join("\n"));
      setSavedAt(Date.now());
    } catch (error) {
      const err = toApiError(error);
      const said = Object.entries(err.fields).flatMap(([key, list]) => {
        const index = key.match(/^domains\.(\d+)$/)?.[1];
        const domain = index === undefined ? undefined : domains[Number(index)];
        return key.startsWith("domains") ? list.map((m) => (domain ? `${domain}: ${m}` : m)) : [];
      });
      if (said.length) setMessages(said);
      else setFormError(err.message);
    } finally {
      setSaving(false);
    }
  };

  const invalid = messages.length > 0;
  return (
    <form noValidate onSubmit={onSubmit} data-testid="web-fetch-settings-form" className="space-y-3">
      <fieldset>
        <legend className={LABEL}>{t("webFetch.mode")}</legend>
        <div className="mt-1 space-y-1">
          {MODES.map((m) => (
            <label key={m} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-mode`}
                value={m}
                data-testid={`web-fetch-mode-${m}`}
                checked={mode === m}
                onChange={() => setMode(m)}
              />
              {t(`webFetch.mode.${m}`)}
            </label>
          ))}
        </div>
      </fieldset>
      {mode === "allowlist" && (
        <div>
          <label htmlFor={`${id}-domains`} className={LABEL}>
            {t("webFetch.domains")}
          </label>
          <textarea
            id={`${id}-domains`}
            data-testid="field-webFetchDomains"
            rows={3}
            value={text}
            placeholder={"docs.example.com\nexample.org"}
            aria-invalid={invalid || undefined}
            aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
            onChange={(e) => setText(e.target.value)}
            className={`mt-1 font-mono ${INPUT}`}
          />
          <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            {t("webFetch.domainsHint")}
          </p>
          {invalid && (
            <ul
              id={`${id}-error`}
              data-testid="field-error-webFetchDomains"
              className="mt-1 space-y-0.5 text-xs text-red-700 dark:text-red-300"
            >
              {messages.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="flex items-center gap-3">
        <button type="submit" data-testid="web-fetch-settings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("admin.saving") : t("gov.save")}
        </button>
        <SavedNote at={savedAt} />
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}

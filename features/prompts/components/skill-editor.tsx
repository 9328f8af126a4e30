"use client";

import { type FormEvent, useId, useState } from "react";
import { BUTTON, ErrorNote, INPUT, LABEL, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type Saved, skillsApi } from "@/features/prompts/skills-client";
import { toApiError } from "@/lib/client/api";

export type SkillDraft = { name: string; description: string; instructions: string };

/**
 * A skill's name (fixed once it exists), description and instructions, saved as its next version; `files` gives
 * the files the new version keeps (the editor does not change files: an import does).
 */
export function SkillEditor(props: {
  start: SkillDraft;
  nameFixed?: boolean;
  files?: () => Promise<{ path: string; content: string }[]>;
  onSaved: (saved: Saved) => void;
  onCancel?: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [draft, setDraft] = useState(props.start);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const files = props.files ? await props.files() : [];
      props.onSaved(
        await skillsApi.save({ ...draft, files, ...(message.trim() ? { message: message.trim() } : {}) }),
      );
    } catch (err) {
      const apiError = toApiError(err);
      const fields = Object.values(apiError.fields ?? {}).flat();
      setError(fields.length ? fields.join("; ") : apiError.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} data-testid="skill-editor" className="space-y-3">
      <div className="space-y-1">
        <label htmlFor={`${id}-name`} className={LABEL}>
          {t("skills.name")} <span className="font-normal text-slate-500">({t("skills.nameHint")})</span>
        </label>
        <input
          id={`${id}-name`}
          data-testid="skill-name"
          className={INPUT}
          value={draft.name}
          readOnly={props.nameFixed}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          maxLength={64}
          required
        />
      </div>
      <div className="space-y-1">
        <label htmlFor={`${id}-description`} className={LABEL}>
          {t("skills.description")}{" "}
          <span className="font-normal text-slate-500">({t("skills.descriptionHint")})</span>
        </label>
        <input
          id={`${id}-description`}
          data-testid="skill-description"
          className={INPUT}
          value={draft.description}
          onChange={(e) => setDraft({ ...draft, description: e.target.value })}
          maxLength={1024}
          required
        />
      </div>
      <div className="space-y-1">
        <label htmlFor={`${id}-instructions`} className={LABEL}>
          {t("skills.instructions")}
        </label>
        <textarea
          id={`${id}-instructions`}
          data-testid="skill-instructions"
          className={`${INPUT} min-h-48 font-mono`}
          value={draft.instructions}
          onChange={(e) => setDraft({ ...draft, instructions: e.target.value })}
          required
        />
      </div>
      <div className="space-y-1">
        <label htmlFor={`${id}-message`} className={LABEL}>
          {t("skills.message")}
        </label>
        <input
          id={`${id}-message`}
          className={INPUT}
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          maxLength={2000}
        />
      </div>
      {error && <ErrorNote testId="skill-error" message={error} />}
      <div className="flex gap-2">
        <button type="submit" data-testid="skill-save" className={PRIMARY} disabled={busy}>
          {t("skills.save")}
        </button>
        {props.onCancel && (
          <button type="button" className={BUTTON} onClick={props.onCancel}>
            {t("skills.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}

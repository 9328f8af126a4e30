"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { CARD, ErrorNote, LABEL, PRIMARY } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { skillPageHref, skillsApi } from "@/features/prompts/skills-client";
import { toApiError } from "@/lib/client/api";
import { LabelChip } from "./label-bar";
import { SkillEditor } from "./skill-editor";

/** The tenant's skills: the list, a zip import and a new skill (editors only for the last two). */
export function SkillsList() {
  const { t } = useI18n();
  const id = useId();
  const router = useRouter();
  const list = useLoad((signal) => skillsApi.list(signal));
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  if (!list.data)
    return list.error ? (
      <ErrorNote testId="skills-error" message={list.error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("skills.loading")}</p>
    );
  const { skills, rights } = list.data;

  const importZip = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const saved = await skillsApi.importZip(file);
      setNote(t("skills.imported", { name: saved.name, version: String(saved.version) }));
      list.reload();
    } catch (err) {
      const apiError = toApiError(err);
      const fields = Object.values(apiError.fields ?? {}).flat();
      setError(fields.length ? fields.join("; ") : apiError.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-4">
      {rights.edit && (
        <section className={`${CARD} flex flex-wrap items-end gap-4 p-4`}>
          <div className="space-y-1">
            <label htmlFor={`${id}-zip`} className={LABEL}>
              {t("skills.import")}
            </label>
            <input
              id={`${id}-zip`}
              data-testid="skill-import"
              type="file"
              accept=".zip,application/zip"
              disabled={busy}
              onChange={(e) => {
                void importZip(e.target.files?.[0]);
                e.target.value = "";
              }}
              className="block text-sm"
            />
            <p className="text-xs text-slate-500">{t("skills.importHint")}</p>
          </div>
          {!creating && (
            <button
              type="button"
              data-testid="new-skill"
              className={PRIMARY}
              onClick={() => setCreating(true)}
            >
              {t("skills.new")}
            </button>
          )}
        </section>
      )}
      {note && (
        <p data-testid="skill-imported" className="text-sm text-emerald-700 dark:text-emerald-300">
          {note}
        </p>
      )}
      {error && <ErrorNote testId="skill-import-error" message={error} />}
      {creating && (
        <section className={`${CARD} space-y-3 p-4`} data-testid="new-skill-panel">
          <h2 className="font-semibold">{t("skills.new")}</h2>
          <SkillEditor
            start={{ name: "", description: "", instructions: "" }}
            onSaved={(saved) => router.push(skillPageHref(saved.name))}
            onCancel={() => setCreating(false)}
          />
        </section>
      )}
      {skills.length === 0 ? (
        <p data-testid="skills-empty" className="text-sm text-slate-500">
          {t("skills.none")}
        </p>
      ) : (
        <table data-testid="skills-table" className={`${CARD} w-full text-left text-sm`}>
          <thead className="text-xs text-slate-500">
            <tr>
              <th className="px-3 py-2">{t("skills.col.name")}</th>
              <th className="px-3 py-2">{t("skills.col.description")}</th>
              <th className="px-3 py-2">{t("skills.col.labels")}</th>
              <th className="px-3 py-2">{t("skills.col.version")}</th>
            </tr>
          </thead>
          <tbody>
            {skills.map((s) => (
              <tr
                key={s.name}
                data-testid="skill-row"
                className="border-t border-slate-200 dark:border-slate-800"
              >
                <td className="px-3 py-2 font-medium">
                  <Link
                    href={skillPageHref(s.name)}
                    className="text-indigo-600 hover:underline dark:text-indigo-400"
                  >
                    {s.name}
                  </Link>
                </td>
                <td className="px-3 py-2 text-slate-700 dark:text-slate-200">{s.description}</td>
                <td className="px-3 py-2">
                  <span className="flex flex-wrap gap-1">
                    {Object.entries(s.labels)
                      .filter(([l]) => l !== "latest")
                      .map(([l, v]) => (
                        <LabelChip key={l} label={l} version={v} />
                      ))}
                  </span>
                </td>
                <td className="px-3 py-2">{t("skills.latest", { version: String(s.latestVersion) })}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

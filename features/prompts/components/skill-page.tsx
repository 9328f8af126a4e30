"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { BUTTON, CARD, ErrorNote } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import type { PromptRightsView } from "@/features/prompts/client";
import { skillsApi } from "@/features/prompts/skills-client";
import { toApiError } from "@/lib/client/api";
import { LabelBar } from "./label-bar";
import { SkillEditor } from "./skill-editor";
import { VersionList } from "./version-list";

/**
 * One skill: its versions (the prompts' list), the selected version's description, instructions and files, its
 * labels (the model loads production, else latest), and the editor for the next version.
 */
export function SkillPage({ name }: { name: string }) {
  const { t } = useI18n();
  const router = useRouter();
  const detail = useLoad((signal) => skillsApi.get(name, signal));
  const [chosen, setChosen] = useState<number | null>(null);
  if (!detail.data)
    return detail.error ? (
      <ErrorNote testId="skill-page-error" message={detail.error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("skills.loading")}</p>
    );
  const { versions, labels, rights } = detail.data;
  const selected = chosen ?? labels.production ?? versions[0]?.version ?? 0;
  return (
    <div className="grid gap-4 lg:grid-cols-[16rem_1fr]">
      <aside className="space-y-2">
        <h2 className="text-sm font-semibold">{t("skills.versions")}</h2>
        <VersionList versions={versions} selected={selected} onSelect={setChosen} />
      </aside>
      <div className="min-w-0 space-y-4">
        {/* Keyed by version and labels: another version, or a moved label, loads afresh. */}
        <SkillVersionPanel
          key={`${selected}:${JSON.stringify(labels)}`}
          name={name}
          version={selected}
          labels={labels}
          rights={rights}
          onChanged={(saved) => {
            if (saved !== undefined) setChosen(saved);
            detail.reload();
          }}
        />
        <div className="flex items-center gap-4">
          <Link
            href="/dev/agent/skills"
            className="text-sm text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("skills.back")}
          </Link>
          {rights.edit && (
            // Archived: no longer listed nor offered to the model; a new version (or import) brings it back.
            <button
              type="button"
              data-testid="skill-archive"
              className={BUTTON}
              onClick={() => void skillsApi.archive(name).then(() => router.push("/dev/agent/skills"))}
            >
              {t("skills.archiveSkill")}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

/** One version of the skill: labels, description, instructions, files, and the editor for the next version. */
function SkillVersionPanel(props: {
  name: string;
  version: number;
  labels: Record<string, number>;
  rights: PromptRightsView;
  onChanged: (saved?: number) => void;
}) {
  const { t } = useI18n();
  const { name } = props;
  const version = useLoad((signal) => skillsApi.version(name, props.version, signal));
  const [editing, setEditing] = useState(false);
  const [openFile, setOpenFile] = useState<{ path: string; content: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shown = version.data;
  if (!shown)
    return version.error ? (
      <ErrorNote testId="skill-page-error" message={version.error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("skills.loading")}</p>
    );
  const rights = props.rights;

  const show = async (path: string) => {
    setError(null);
    try {
      setOpenFile({ path, content: await skillsApi.file(name, shown.version, path) });
    } catch (err) {
      setError(toApiError(err).message);
    }
  };
  const archive = async () => {
    setError(null);
    try {
      await skillsApi.archiveVersion(name, shown.version);
      props.onChanged();
    } catch (err) {
      setError(toApiError(err).message);
    }
  };

  return (
    <>
      <LabelBar
        name={name}
        labels={props.labels}
        selected={shown.version}
        archived={shown.archived}
        rights={rights}
        move={skillsApi.moveLabel}
        onMoved={() => props.onChanged()}
      />
      {error && <ErrorNote testId="skill-action-error" message={error} />}
      <section data-testid="skill-version" className={`${CARD} space-y-3 p-4`}>
        <p data-testid="skill-shown-description" className="text-sm text-slate-700 dark:text-slate-200">
          <span className="font-medium">{t("skills.description")}: </span>
          {shown.config.description}
        </p>
        <pre
          data-testid="skill-shown-instructions"
          className="max-h-[32rem] overflow-auto rounded-md bg-slate-50 p-3 text-sm whitespace-pre-wrap dark:bg-slate-950"
        >
          {shown.text}
        </pre>
        <div className="space-y-1">
          <h3 className="text-sm font-semibold">{t("skills.files")}</h3>
          {shown.files.length === 0 ? (
            <p className="text-sm text-slate-500">{t("skills.noFiles")}</p>
          ) : (
            <ul data-testid="skill-files" className="space-y-1 text-sm">
              {shown.files.map((f) => (
                <li key={f.path}>
                  <button
                    type="button"
                    data-testid="skill-file"
                    className="font-mono text-indigo-600 hover:underline dark:text-indigo-400"
                    onClick={() => void show(f.path)}
                  >
                    {f.path}
                  </button>{" "}
                  <span className="text-xs text-slate-500">{f.bytes} B</span>
                </li>
              ))}
            </ul>
          )}
          {openFile && (
            <pre
              data-testid="skill-file-content"
              className="max-h-96 overflow-auto rounded-md bg-slate-50 p-3 text-xs whitespace-pre-wrap dark:bg-slate-950"
            >
              <span className="font-semibold">{openFile.path}</span>
              {"\n"}
              {openFile.content}
            </pre>
          )}
        </div>
        {rights.edit && (
          <div className="flex gap-2">
            <button
              type="button"
              data-testid="skill-edit"
              className={BUTTON}
              onClick={() => setEditing(true)}
            >
              {t("skills.edit")}
            </button>
            {!shown.archived && !shown.labels.length && (
              <button type="button" className={BUTTON} onClick={() => void archive()}>
                {t("skills.archiveVersion")}
              </button>
            )}
          </div>
        )}
      </section>
      {editing && (
        <section className={`${CARD} space-y-3 p-4`}>
          <h2 className="font-semibold">{t("skills.edit")}</h2>
          <SkillEditor
            key={shown.version}
            nameFixed
            start={{ name, description: shown.config.description ?? "", instructions: shown.text ?? "" }}
            // The new version keeps this version's files (an import changes files).
            files={() =>
              Promise.all(
                shown.files.map(async (f) => ({
                  path: f.path,
                  content: await skillsApi.file(name, shown.version, f.path),
                })),
              )
            }
            onSaved={(saved) => {
              setEditing(false);
              props.onChanged(saved.version);
            }}
            onCancel={() => setEditing(false)}
          />
        </section>
      )}
    </>
  );
}

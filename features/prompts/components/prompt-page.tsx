"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useState } from "react";
import { BUTTON, CARD, ErrorNote, Pill } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { AskAssistantButton } from "@/features/drawer/components";
import { promptsApi } from "@/features/prompts/client";
import type { PromptVersionView } from "@/features/prompts/contracts";
import { toApiError } from "@/lib/client/api";
import { LabelBar } from "./label-bar";
import { Playground } from "./playground";
import { PromptContent } from "./prompt-content";
import { PromptEditor } from "./prompt-editor";
import { VersionCompare } from "./version-compare";
import { VersionDiff } from "./version-diff";
import { VersionList } from "./version-list";

const TABS = ["prompt", "diff", "metrics", "playground", "edit"] as const;
type Tab = (typeof TABS)[number];

/** The page's state in the URL (?v=, ?tab=, ?from=&to=), so a version, a diff or the playground can be linked. */
function useUrlState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const number = (key: string) => {
    const n = Number(params.get(key));
    return Number.isInteger(n) && n > 0 ? n : null;
  };
  const rawTab = params.get("tab");
  const set = useCallback(
    (change: Record<string, string | null>) => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(change)) {
        if (v === null) next.delete(k);
        else next.set(k, v);
      }
      router.replace(`${pathname}?${next.toString()}`, { scroll: false });
    },
    [params, router, pathname],
  );
  return {
    version: number("v"),
    tab: (TABS as readonly string[]).includes(rawTab ?? "") ? (rawTab as Tab) : "prompt",
    from: number("from"),
    to: number("to"),
    set,
  };
}

/** One prompt: its versions, the selected one's content and labels, a diff of any two, the playground and the editor. */
export function PromptPage({ name }: { name: string }) {
  const { t } = useI18n();
  const url = useUrlState();
  const detail = useLoad((signal) => promptsApi.get(name, signal));
  const models = useLoad((signal) => promptsApi.models(signal));
  const [archiveError, setArchiveError] = useState<string | null>(null);

  if (!detail.data)
    return detail.error ? (
      <ErrorNote testId="prompt-error" message={detail.error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("prompts.loading")}</p>
    );

  const { versions, labels, rights } = detail.data;
  const selected: PromptVersionView =
    versions.find((v) => v.version === url.version) ??
    versions.find((v) => v.version === labels.production) ??
    versions[0]!;
  const tabs = TABS.filter((tab) => tab !== "edit" || rights.edit);
  const tab = tabs.includes(url.tab) ? url.tab : "prompt";
  const to = url.to ?? selected.version;
  const from = url.from ?? versions.find((v) => v.version < to)?.version ?? to;

  const archive = async () => {
    setArchiveError(null);
    try {
      await promptsApi.archive(name, selected.version);
      detail.reload();
    } catch (cause) {
      setArchiveError(toApiError(cause).message);
    }
  };

  return (
    <div className="grid min-w-0 gap-6 lg:grid-cols-[17rem_minmax(0,1fr)]">
      <aside className="min-w-0 space-y-2">
        <h2 className="text-sm font-semibold text-slate-600 dark:text-slate-300">
          {t("prompts.versionsCount", { count: String(versions.length) })}
        </h2>
        <div className="max-h-[24rem] overflow-y-auto lg:max-h-[calc(100vh-12rem)]">
          <VersionList
            versions={versions}
            selected={selected.version}
            onSelect={(v) => url.set({ v: String(v), from: null, to: null })}
          />
        </div>
      </aside>
      <section
        className={`${CARD} min-w-0 space-y-4 p-4`}
        data-testid="prompt-version"
        data-version={selected.version}
      >
        <header className="flex flex-wrap items-center gap-2">
          <h2 className="text-lg font-semibold">v{selected.version}</h2>
          {selected.archived && <Pill tone="slate">{t("prompts.archived")}</Pill>}
          <span className="text-sm text-slate-500">
            {selected.message ?? t("prompts.noMessage")} · {selected.createdBy}
          </span>
          <span className="ml-auto flex flex-wrap gap-2">
            <AskAssistantButton
              item={{
                type: "prompt_version",
                id: `${name}@${selected.version}`,
                label: t("context.label.prompt_version", { name, version: String(selected.version) }),
              }}
            />
            {rights.edit && !selected.archived && selected.labels.length === 0 && (
              <button
                type="button"
                data-testid="archive-version"
                onClick={() => void archive()}
                className={BUTTON}
              >
                {t("prompts.archive")}
              </button>
            )}
          </span>
        </header>
        {archiveError && <ErrorNote testId="archive-error" message={archiveError} />}
        <LabelBar
          key={selected.version}
          name={name}
          labels={labels}
          selected={selected.version}
          archived={selected.archived}
          rights={rights}
          onMoved={detail.reload}
        />
        <div
          role="tablist"
          aria-label={t("prompts.views")}
          className="flex gap-1 overflow-x-auto border-b border-slate-200 dark:border-slate-800"
        >
          {tabs.map((value) => (
            <button
              key={value}
              type="button"
              role="tab"
              data-testid={`tab-${value}`}
              aria-selected={tab === value}
              onClick={() => url.set({ tab: value === "prompt" ? null : value })}
              className={`-mb-px border-b-2 px-3 py-1.5 text-sm whitespace-nowrap ${
                tab === value
                  ? "border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                  : "border-transparent text-slate-600 hover:text-indigo-600 dark:text-slate-300"
              }`}
            >
              {t(`prompts.tab.${value}`)}
            </button>
          ))}
        </div>
        <div role="tabpanel">
          {tab === "prompt" && <PromptContent version={selected} />}
          {tab === "diff" && (
            <VersionDiff
              versions={versions}
              from={from}
              to={to}
              onChange={(f, tt) => url.set({ from: String(f), to: String(tt) })}
            />
          )}
          {tab === "metrics" && <VersionCompare prompt={name} />}
          {tab === "playground" &&
            (models.data ? (
              <Playground
                key={selected.version}
                version={selected}
                models={models.data.models}
                defaultModel={models.data.defaultModel}
                ledgerLink={rights.admin}
              />
            ) : models.error ? (
              <ErrorNote message={models.error.message} />
            ) : (
              <p className="text-sm text-slate-500">{t("prompts.loading")}</p>
            ))}
          {tab === "edit" && (
            <PromptEditor
              key={selected.version}
              name={name}
              start={{
                type: detail.data.type,
                messages: selected.messages ?? [],
                text: selected.text ?? "",
                config: selected.config,
              }}
              models={models.data?.models ?? []}
              rights={rights}
              onSaved={(saved) => {
                detail.reload();
                url.set({ v: String(saved.version), tab: null, from: null, to: null });
              }}
            />
          )}
        </div>
      </section>
    </div>
  );
}

/** The prompt's name as a path of folders, with a way back to the list. */
export function PromptHeading({ name }: { name: string }) {
  const { t } = useI18n();
  const parts = name.split("/");
  return (
    <header className="space-y-1">
      <nav aria-label={t("prompts.breadcrumb")} className="text-sm">
        <Link href="/dev/agent/prompts" className="text-indigo-600 hover:underline dark:text-indigo-400">
          {t("prompts.title")}
        </Link>
        {parts.slice(0, -1).map((folder, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: folders of one name, in order
          <span key={i} className="text-slate-500">
            {" / "}
            {folder}
          </span>
        ))}
      </nav>
      <h1 data-testid="prompt-title" className="text-2xl font-bold break-all">
        {parts.at(-1)}
      </h1>
    </header>
  );
}

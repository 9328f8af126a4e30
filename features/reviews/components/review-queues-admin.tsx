"use client";

import Link from "next/link";
import { useState } from "react";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { BUTTON, CARD, ErrorNote, Pill, PRIMARY, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { queueHref, reviewHref, reviewsApi } from "../client";
import type { ReviewQueueView, ReviewRule } from "../contracts";
import { type QueueChoices, QueueForm } from "./queue-form";

type T = ReturnType<typeof useI18n>["t"];

/** A rule in a few words: its type, and a threshold's or a sample's figures. */
export function ruleText(rule: ReviewRule, t: T): string {
  if (rule.type === "score_below")
    return t("rv.ruleText.score_below", { name: rule.name, threshold: String(rule.threshold) });
  if (rule.type === "sample") {
    const scope = [rule.source, rule.alias].filter(Boolean).join(" · ") || t("rv.ruleText.all");
    return t("rv.ruleText.sample", { percent: String(rule.percent), scope });
  }
  return t(`rv.rule.${rule.type}`);
}

/** Done of all (done and open): a bar, and the open and in-review counts beside it. */
export function QueueProgress({ counts, testId }: { counts: ReviewQueueView["counts"]; testId: string }) {
  const { t } = useI18n();
  const total = counts.done + counts.open;
  const share = total ? Math.round((counts.done / total) * 100) : 0;
  return (
    <div data-testid={testId} data-done={counts.done} data-open={counts.open} className="min-w-0 space-y-1">
      <div
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={counts.done}
        aria-label={t("rv.progress", { done: String(counts.done), total: String(total) })}
        className="h-2 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
      >
        <div
          className="h-full rounded-full bg-indigo-600 dark:bg-indigo-400"
          style={{ width: `${share}%` }}
        />
      </div>
      <p className="flex flex-wrap gap-x-3 text-xs text-slate-600 tabular-nums dark:text-slate-300">
        <span>{t("rv.progress", { done: String(counts.done), total: String(total) })}</span>
        <span>{t("rv.counts", { open: String(counts.open), claimed: String(counts.claimed) })}</span>
      </p>
    </div>
  );
}

/** What the queue form picks from, read once for the page: score config names and eval datasets. */
export function useQueueChoices() {
  return useLoad(async (signal): Promise<QueueChoices> => {
    const [configs, datasets] = await Promise.all([
      reviewsApi.scoreConfigs(signal),
      reviewsApi.datasets(signal),
    ]);
    return {
      scoreNames: configs.configs.filter((c) => !c.archivedAt).map((c) => c.name),
      datasets: datasets.datasets.filter((d) => !d.archived).map((d) => ({ id: d.id, name: d.name })),
    };
  });
}

/** The tenant's review queues: each with its progress and links, Archive, and a form to create one. */
export function ReviewQueuesAdmin() {
  const { t } = useI18n();
  const queues = useLoad((signal) => reviewsApi.list(signal));
  const choices = useQueueChoices();
  const [adding, setAdding] = useState(false);
  const [asking, setAsking] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const archive = async (id: string) => {
    setActionError(null);
    try {
      await reviewsApi.archive(id);
      setAsking(null);
      queues.reload();
    } catch (error) {
      setActionError(toApiError(error).message);
    }
  };

  return (
    <Section title={t("rv.queues.title")} testId="rv-queues">
      {actionError && <ErrorNote message={actionError} />}
      {queues.error && <ErrorNote message={queues.error.message} />}
      {choices.error && <ErrorNote message={choices.error.message} />}
      {queues.data && !queues.data.queues.length && !adding && (
        <p data-testid="rv-queues-empty" className="text-sm text-slate-500">
          {t("rv.queues.empty")}
        </p>
      )}
      <ul data-testid="rv-queue-list" className="min-w-0 space-y-2">
        {queues.data?.queues.map((q) => (
          <li
            key={q.id}
            data-testid="rv-queue"
            data-queue-id={q.id}
            data-queue-name={q.name}
            className={`${CARD} min-w-0 space-y-2 p-3 ${q.archivedAt ? "opacity-70" : ""}`}
          >
            <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
              <Link
                href={queueHref(q.id)}
                data-testid="rv-queue-link"
                className="min-w-0 font-medium break-words text-indigo-700 hover:underline dark:text-indigo-300"
              >
                {q.name}
              </Link>
              <Pill tone="slate">
                {t(q.reviewers === "admins" ? "rv.reviewersAdmins" : "rv.reviewersReviewers")}
              </Pill>
              {q.archivedAt && <Pill tone="amber">{t("rv.archived")}</Pill>}
            </div>
            <p className="text-xs break-words text-slate-500">
              {q.rules.map((r) => ruleText(r, t)).join(" · ")}
            </p>
            <QueueProgress counts={q.counts} testId="rv-queue-progress" />
            {!q.archivedAt && (
              <div className="flex flex-wrap gap-2 pt-1">
                <Link href={reviewHref(q.id)} data-testid="rv-queue-start" className={PRIMARY}>
                  {t("rv.start")}
                </Link>
                <Link href={queueHref(q.id)} className={BUTTON}>
                  {t("rv.open")}
                </Link>
                <InlineConfirm
                  asking={asking === q.id}
                  onAsk={() => setAsking(q.id)}
                  onCancel={() => setAsking(null)}
                  onConfirm={() => void archive(q.id)}
                  action={{
                    label: t("rv.archive"),
                    ariaLabel: t("rv.archiveOf", { name: q.name }),
                    testId: "rv-queue-archive",
                  }}
                  confirm={{ label: t("rv.archiveConfirm"), testId: "rv-queue-archive-confirm" }}
                  cancelTestId="rv-queue-archive-cancel"
                  warning={t("rv.archiveWarning")}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      {adding && choices.data ? (
        <QueueForm
          choices={choices.data}
          onCancel={() => setAdding(false)}
          onSaved={() => {
            setAdding(false);
            queues.reload();
          }}
        />
      ) : (
        <button
          type="button"
          data-testid="rv-queue-add"
          className={BUTTON}
          disabled={!choices.data}
          onClick={() => setAdding(true)}
        >
          {t("rv.add")}
        </button>
      )}
    </Section>
  );
}

"use client";

import Link from "next/link";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import {
  BUTTON,
  BUTTON_SM,
  CARD,
  DateText,
  ErrorNote,
  Pill,
  PRIMARY,
  Section,
} from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { QUEUES_PAGE, reviewHref, reviewsApi } from "../client";
import type { ReviewItemStatus, ReviewItemView, ReviewQueueStats } from "../contracts";
import { QueueForm } from "./queue-form";
import { QueueProgress, ruleText, useQueueChoices } from "./review-queues-admin";

const TH = "px-2 py-1.5 text-left text-xs font-medium text-slate-500 dark:text-slate-400";
const TD = "px-2 py-1.5 align-top";

/** One queue for its admin: progress, reviewers' throughput and reviews per day, its items, Fill now and Edit. */
export function QueuePage({ queueId }: { queueId: string }) {
  const { t } = useI18n();
  const queue = useLoad((signal) => reviewsApi.get(queueId, signal));
  const stats = useLoad((signal) => reviewsApi.stats(queueId, signal));
  const choices = useQueueChoices();
  const [editing, setEditing] = useState(false);
  const [filled, setFilled] = useState<number | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [itemsVersion, setItemsVersion] = useState(0);

  const fill = async () => {
    setActionError(null);
    try {
      const answer = await reviewsApi.fill(queueId);
      setFilled(answer.added);
      queue.reload();
      stats.reload();
      setItemsVersion((v) => v + 1);
    } catch (error) {
      setActionError(toApiError(error).message);
    }
  };

  const q = queue.data?.queue;
  return (
    <div data-testid="rv-queue-page" className="min-w-0 space-y-6">
      <header className="space-y-2">
        <Link href={QUEUES_PAGE} className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
          ← {t("rv.queue.back")}
        </Link>
        {queue.error && <ErrorNote message={queue.error.message} />}
        {q && (
          <>
            <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
              <h1 data-testid="rv-queue-name" className="min-w-0 text-2xl font-bold break-words">
                {q.name}
              </h1>
              <Pill tone="slate">
                {t(q.reviewers === "admins" ? "rv.reviewersAdmins" : "rv.reviewersReviewers")}
              </Pill>
              {q.archivedAt && <Pill tone="amber">{t("rv.archived")}</Pill>}
            </div>
            {q.description && <p className="text-slate-600 dark:text-slate-300">{q.description}</p>}
            <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
              <dt className="text-slate-500">{t("rv.queue.rules")}</dt>
              <dd data-testid="rv-queue-rules" className="break-words">
                {q.rules.map((r) => ruleText(r, t)).join(" · ")}
              </dd>
              <dt className="text-slate-500">{t("rv.queue.scores")}</dt>
              <dd className="font-mono break-words">{q.scoreNames.join(", ") || "—"}</dd>
            </dl>
            {!q.archivedAt && (
              <div className="flex flex-wrap items-center gap-2">
                <Link href={reviewHref(q.id)} data-testid="rv-queue-start" className={PRIMARY}>
                  {t("rv.start")}
                </Link>
                <button
                  type="button"
                  data-testid="rv-queue-fill"
                  className={BUTTON}
                  onClick={() => void fill()}
                >
                  {t("rv.queue.fill")}
                </button>
                <button
                  type="button"
                  data-testid="rv-queue-edit"
                  className={BUTTON}
                  disabled={!choices.data}
                  onClick={() => setEditing(true)}
                >
                  {t("rv.edit")}
                </button>
                {filled !== null && (
                  <span role="status" data-testid="rv-queue-filled" className="text-sm text-emerald-700">
                    ✓ {t("rv.queue.filled", { n: String(filled) })}
                  </span>
                )}
              </div>
            )}
            {actionError && <ErrorNote message={actionError} />}
          </>
        )}
      </header>
      {editing && q && choices.data && (
        <QueueForm
          queue={q}
          choices={choices.data}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            queue.reload();
          }}
        />
      )}
      <Section title={t("rv.queue.progress")} testId="rv-queue-stats">
        {stats.error && <ErrorNote message={stats.error.message} />}
        {stats.data && (
          <>
            <QueueProgress counts={stats.data} testId="rv-queue-page-progress" />
            <div className="grid min-w-0 gap-4 lg:grid-cols-2">
              <Throughput stats={stats.data} />
              <PerDay stats={stats.data} />
            </div>
          </>
        )}
      </Section>
      <Items key={itemsVersion} queueId={queueId} />
    </div>
  );
}

/** Each reviewer's done items today and over seven days. */
function Throughput({ stats }: { stats: ReviewQueueStats }) {
  const { t } = useI18n();
  return (
    <div className="min-w-0 space-y-2">
      <h3 className="text-sm font-semibold">{t("rv.queue.throughput")}</h3>
      {stats.reviewers.length ? (
        <div className="overflow-x-auto">
          <table data-testid="rv-throughput" className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 dark:border-slate-800">
                <th className={TH}>{t("rv.queue.reviewer")}</th>
                <th className={`${TH} text-right`}>{t("rv.queue.doneToday")}</th>
                <th className={`${TH} text-right`}>{t("rv.queue.done7d")}</th>
              </tr>
            </thead>
            <tbody>
              {stats.reviewers.map((r) => (
                <tr
                  key={r.userId}
                  data-testid="rv-throughput-row"
                  data-email={r.email}
                  className="border-b border-slate-100 last:border-0 dark:border-slate-800"
                >
                  <td className={`${TD} break-all`}>{r.email}</td>
                  <td data-testid="rv-done-today" className={`${TD} text-right tabular-nums`}>
                    {r.doneToday}
                  </td>
                  <td className={`${TD} text-right tabular-nums`}>{r.done7d}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="text-sm text-slate-500">{t("rv.queue.throughputEmpty")}</p>
      )}
    </div>
  );
}

/** Reviews per day over the last two weeks (the stats route decides the days; this only draws them). */
function PerDay({ stats }: { stats: ReviewQueueStats }) {
  const { t } = useI18n();
  const data = stats.donePerDay.map((d) => ({ day: d.day.slice(5), count: d.count }));
  return (
    <div className="min-w-0 space-y-2">
      <h3 className="text-sm font-semibold">{t("rv.queue.perDay")}</h3>
      <div data-testid="rv-per-day" className="h-40 min-w-0">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -24 }}>
            <CartesianGrid
              strokeDasharray="3 3"
              vertical={false}
              stroke="currentColor"
              strokeOpacity={0.15}
            />
            <XAxis dataKey="day" tick={{ fontSize: 10 }} interval="preserveStartEnd" />
            <YAxis allowDecimals={false} tick={{ fontSize: 10 }} />
            <Tooltip />
            <Bar dataKey="count" name={t("rv.queue.perDay")} fill="#4f46e5" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}

/** The queue's items, open or done (a tab each), fifty at a time with More. */
function Items({ queueId }: { queueId: string }) {
  const { t } = useI18n();
  const [status, setStatus] = useState<ReviewItemStatus>("open");
  return (
    <Section title={t("rv.queue.items")} testId="rv-items">
      <div role="tablist" className="flex gap-2">
        {(["open", "done"] as const).map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={status === s}
            data-testid={`rv-items-${s}`}
            onClick={() => setStatus(s)}
            className={`${BUTTON_SM} ${status === s ? "bg-slate-100 font-medium dark:bg-slate-800" : ""}`}
          >
            {t(s === "open" ? "rv.queue.itemsOpen" : "rv.queue.itemsDone")}
          </button>
        ))}
      </div>
      <ItemRows key={status} queueId={queueId} status={status} />
    </Section>
  );
}

function ItemRows({ queueId, status }: { queueId: string; status: ReviewItemStatus }) {
  const { t } = useI18n();
  const first = useLoad((signal) => reviewsApi.items(queueId, { status }, signal));
  const [more, setMore] = useState<{ items: ReviewItemView[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const items = more ?? (first.data ? { items: first.data.items, next: first.data.nextCursor } : null);

  const readMore = async () => {
    if (!items?.next) return;
    try {
      const page = await reviewsApi.items(queueId, { status, cursor: items.next });
      setMore({ items: [...items.items, ...page.items], next: page.nextCursor });
    } catch (e) {
      setError(toApiError(e).message);
    }
  };

  return (
    <>
      {(first.error || error) && <ErrorNote message={first.error?.message ?? error ?? ""} />}
      {items && !items.items.length && <p className="text-sm text-slate-500">{t("rv.queue.itemsEmpty")}</p>}
      {items && items.items.length > 0 && (
        <div className="overflow-x-auto">
          <table data-testid="rv-item-table" className={`${CARD} w-full text-sm`}>
            <thead>
              <tr className="border-b border-slate-200 dark:border-slate-800">
                <th className={TH}>{t("rv.queue.turn")}</th>
                <th className={TH}>{t("rv.queue.reason")}</th>
                <th className={TH}>{t("rv.queue.added")}</th>
                <th className={TH}>{t("rv.queue.state")}</th>
              </tr>
            </thead>
            <tbody>
              {items.items.map((item) => (
                <tr
                  key={item.id}
                  data-testid="rv-item"
                  className="border-b border-slate-100 last:border-0 dark:border-slate-800"
                >
                  <td className={TD}>
                    <Link
                      href={`/dev/agent/audit/${encodeURIComponent(item.turnId)}`}
                      className="font-mono text-xs break-all text-indigo-700 hover:underline dark:text-indigo-300"
                    >
                      {item.turnId}
                    </Link>
                  </td>
                  <td className={TD}>{t(`rv.rule.${item.reason}`)}</td>
                  <td className={`${TD} whitespace-nowrap`}>
                    <DateText value={item.createdAt} fallback="—" />
                  </td>
                  <td className={TD}>
                    <ItemState item={item} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {items?.next && (
        <button type="button" className={BUTTON_SM} onClick={() => void readMore()}>
          {t("rv.queue.more")}
        </button>
      )}
    </>
  );
}

function ItemState({ item }: { item: ReviewItemView }) {
  const { t, locale } = useI18n();
  const time = (iso: string) =>
    new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en-US", {
      dateStyle: "short",
      timeStyle: "short",
    }).format(new Date(iso));
  if (item.status === "done" && item.doneAt)
    return <span>{t("rv.queue.doneAt", { time: time(item.doneAt) })}</span>;
  if (item.leaseUntil && new Date(item.leaseUntil).getTime() > Date.now())
    return <Pill tone="indigo">{t("rv.queue.inReview", { time: time(item.leaseUntil) })}</Pill>;
  return <Pill tone="green">{t("rv.queue.itemsOpen")}</Pill>;
}

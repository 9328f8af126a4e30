"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { Badge, formatDateTime, formatDuration, formatTokens } from "@/features/admin-tables/components";
import type { RunCall, RunReplayResponse } from "@/features/replay/contracts";
import { buildReplay } from "@/features/replay/replay-view";
import { buildRunTimeline } from "@/features/replay/run-view";
import { ReplayHeader } from "./replay-header";
import { ScoreList } from "./score-list";
import { AnchorPrefix, Steps } from "./steps";
import { Waterfall } from "./waterfall";

/** The run's totals: the same aggregates as its row on the Runs page. */
function RunTotals({ data, superAdmin }: { data: RunReplayResponse; superAdmin: boolean }) {
  const { t, locale } = useI18n();
  const { run } = data;
  const items: [string, React.ReactNode][] = [
    [t("replay.run.first"), formatDateTime(new Date(run.firstAt), locale)],
    [t("replay.run.last"), formatDateTime(new Date(run.lastAt), locale)],
    [t("replay.duration"), formatDuration(run.durationMs)],
    [t("replay.run.calls"), String(run.calls)],
    [t("replay.run.toolCalls"), String(run.toolCalls)],
    [
      t("replay.tokens"),
      t("replay.tokensInOut", {
        in: formatTokens(run.inputTokens, locale),
        out: formatTokens(run.outputTokens, locale),
      }),
    ],
    [t("replay.cost"), <Money key="c" value={run.cost} empty={t("replay.unpriced")} />],
    [t("replay.run.sources"), run.sources.join(", ")],
  ];
  if (superAdmin) items.unshift([t("replay.tenant"), run.tenantName ?? run.tenantId]);
  return (
    <dl
      data-testid="run-totals"
      className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-lg border border-slate-200 bg-white p-3 text-sm sm:grid-cols-4 dark:border-slate-800 dark:bg-slate-900"
    >
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
          <dd className="break-words tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One call of the run, as the turn replay shows a turn: its model calls, tool calls and guardrail events. */
function CallSection({ call, n }: { call: RunCall; n: number }) {
  const { t, locale } = useI18n();
  const replay = useMemo(() => buildReplay(call.turn, call.events), [call]);
  const { turn } = call;
  const who = turn.apiKeyName ?? turn.apiKeyId ?? turn.userEmail ?? "—";
  return (
    <li data-testid="run-call" data-turn-id={turn.id} className="space-y-2">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 border-b border-slate-200 pb-1 dark:border-slate-800">
        <h3 className="text-base font-semibold">{t("replay.run.call", { n: String(n) })}</h3>
        <Badge value={turn.status} />
        <span className="text-sm text-slate-600 dark:text-slate-300">
          {formatDateTime(new Date(turn.startedAt), locale)} · {turn.source} · {who} ·{" "}
          <span className="font-mono">{turn.servedModel ?? turn.requestedModel}</span> ·{" "}
          {turn.latencyMs === null ? "—" : formatDuration(turn.latencyMs)} ·{" "}
          <Money value={turn.cost} empty={t("replay.unpriced")} />
        </span>
        <Link
          href={`/dev/agent/audit/${turn.id}`}
          data-testid="run-call-replay"
          className="ml-auto text-sm text-indigo-600 hover:underline dark:text-indigo-400"
        >
          {t("replay.run.openTurn")}
        </Link>
      </div>
      {turn.errorClass && (
        <p className="rounded-md border border-red-300 bg-red-50 px-3 py-1 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          <span className="font-mono">{turn.errorClass}</span>
          {turn.errorMessage ? `: ${turn.errorMessage}` : ""}
        </p>
      )}
      {replay.steps.length ? (
        <AnchorPrefix.Provider value={`call-${n}-event-`}>
          <Steps steps={replay.steps} highlighted={null} />
        </AnchorPrefix.Provider>
      ) : (
        <p className="text-sm text-slate-500">{t("replay.noEvents")}</p>
      )}
    </li>
  );
}

/** A run replayed: its totals, every call on one timeline, then each call's steps in the order they started. */
export function RunReplayView({ data, superAdmin }: { data: RunReplayResponse; superAdmin: boolean }) {
  const { t } = useI18n();
  const timeline = useMemo(() => buildRunTimeline(data.calls), [data]);
  const { run } = data;
  return (
    <div data-testid="run-replay-page" data-run-id={run.runId} className="min-w-0 space-y-6">
      <ReplayHeader
        back={{ href: "/dev/agent/runs", label: t("replay.run.back") }}
        links={
          <Link
            href={`/dev/agent/turns?f.runId=${encodeURIComponent(run.runId)}`}
            className="text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("replay.run.inLedger")}
          </Link>
        }
        title={t("replay.run.title")}
        status={run.status}
        id={{ value: run.runId, testId: "run-id" }}
      />
      <RunTotals data={data} superAdmin={superAdmin} />
      {data.scores.length > 0 && <ScoreList scores={data.scores} />}
      {data.truncated && (
        <p
          data-testid="run-truncated"
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
        >
          {t("replay.run.truncated", { shown: String(data.calls.length), total: String(run.calls) })}
        </p>
      )}
      <section aria-labelledby="run-timeline-title" className="space-y-2">
        <h2 id="run-timeline-title" className="text-lg font-semibold">
          {t("replay.waterfall")}
        </h2>
        <div className="rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
          <Waterfall rows={timeline.rows} totalMs={timeline.totalMs} />
        </div>
      </section>
      <section aria-labelledby="run-calls-title" className="space-y-2">
        <h2 id="run-calls-title" className="text-lg font-semibold">
          {t("replay.run.callsTitle")}
        </h2>
        <ol className="space-y-6">
          {data.calls.map((call, i) => (
            <CallSection key={call.turn.id} call={call} n={i + 1} />
          ))}
        </ol>
      </section>
    </div>
  );
}

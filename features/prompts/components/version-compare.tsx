"use client";

import { useState } from "react";
import { CARD, DaysSelect, INPUT, LABEL, LoadingBlock } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { qualityText } from "@/features/scores/components";
import { fetchJson } from "@/lib/client/api";
import type { PromptSummaryView, VersionStatsView } from "../contracts";

const promptPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

/** A percentage with one decimal. */
const percent = (rate: number, locale: string) =>
  new Intl.NumberFormat(locale === "zh" ? "zh-CN" : "en-US", {
    style: "percent",
    maximumFractionDigits: 1,
  }).format(rate);
const ms = (value: number | null) => (value === null ? "—" : `${value.toLocaleString("en-US")} ms`);

/**
 * The versions of one stored prompt side by side (GET /api/prompts/{name}/stats): calls, failure rate, cost per
 * call, total cost, p50/p95 latency, so a team sees what a new version changed. Used on the cost dashboard and a
 * prompt's page.
 */
export function VersionCompare({ prompt: fixed }: { prompt?: string }) {
  const { t, locale } = useI18n();
  const [chosen, setChosen] = useState<string | null>(fixed ?? null);
  const [days, setDays] = useState(7);
  const list = useLoad((signal) =>
    fixed
      ? Promise.resolve({ prompts: [] })
      : fetchJson<{ prompts: PromptSummaryView[] }>("/api/prompts", signal),
  );
  // A prompt in production first: that is the one whose versions are worth comparing.
  const prompts = list.data?.prompts ?? [];
  const name = chosen ?? (prompts.find((p) => p.labels.production !== undefined) ?? prompts[0])?.name ?? null;
  const stats = useLoad((signal) =>
    name
      ? fetchJson<{ versions: VersionStatsView[] }>(
          `/api/prompts/${promptPath(name)}/stats?days=${days}`,
          signal,
        )
      : Promise.resolve({ versions: [] }),
  );
  // useLoad runs once per reload: ask again when the prompt or the period changes.
  const key = `${name}|${days}`;
  const [loadedKey, setLoadedKey] = useState(key);
  if (loadedKey !== key) {
    setLoadedKey(key);
    stats.reload();
  }
  const versions = stats.data?.versions ?? [];
  const cell = "px-3 py-2 text-right tabular-nums";
  return (
    <section
      className={`${CARD} p-4`}
      data-testid="prompt-version-compare"
      aria-labelledby="prompt-compare-title"
    >
      <h2 id="prompt-compare-title" className="text-base font-semibold">
        {t("promptStats.title")}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("promptStats.lead")}</p>
      <div className="mt-3 flex flex-wrap items-end gap-3">
        {!fixed && (
          <label className="min-w-48">
            <span className={LABEL}>{t("promptStats.prompt")}</span>
            <select
              className={INPUT}
              value={name ?? ""}
              onChange={(e) => setChosen(e.target.value)}
              disabled={!list.data?.prompts.length}
              data-testid="prompt-compare-select"
            >
              {list.data?.prompts.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <DaysSelect value={days} onChange={setDays} />
      </div>
      {!fixed && list.data && !list.data.prompts.length ? (
        <p className="mt-3 text-sm text-slate-500">{t("promptStats.none")}</p>
      ) : stats.loading && !stats.data ? (
        <LoadingBlock />
      ) : !versions.length ? (
        <p className="mt-3 text-sm text-slate-500" data-testid="prompt-compare-empty">
          {t("promptStats.noCalls")}
        </p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="w-full min-w-[40rem] text-sm" data-testid="prompt-compare-table">
            <thead className="text-xs text-slate-500">
              <tr>
                <th className="px-3 py-2 text-left font-medium">{t("promptStats.version")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.calls")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.failureRate")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.costPerCall")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.cost")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.p50")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.p95")}</th>
                <th className="px-3 py-2 text-left font-medium">{t("promptStats.quality")}</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr
                  key={v.version}
                  className="border-t border-slate-100 dark:border-slate-800"
                  data-version={v.version}
                >
                  <td className="px-3 py-2 font-medium">v{v.version}</td>
                  <td className={cell}>{v.calls.toLocaleString(locale === "zh" ? "zh-CN" : "en-US")}</td>
                  <td className={cell}>{percent(v.failureRate, locale)}</td>
                  <td className={cell}>
                    <Money value={v.costPerCall} empty="—" />
                    {v.unpricedCalls > 0 && (
                      <span className="ml-1 text-xs text-amber-700 dark:text-amber-400">
                        ({t("promptStats.unpriced", { n: String(v.unpricedCalls) })})
                      </span>
                    )}
                  </td>
                  <td className={cell}>
                    <Money value={v.cost} />
                  </td>
                  <td className={cell}>{ms(v.p50LatencyMs)}</td>
                  <td className={cell}>{ms(v.p95LatencyMs)}</td>
                  <td className="px-3 py-2 text-left text-xs" data-testid="prompt-compare-quality">
                    {qualityText(v.scores, locale)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

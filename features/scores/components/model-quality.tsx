"use client";

import { useState } from "react";
import { CARD, DaysSelect, LoadingBlock } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { fetchJson } from "@/lib/client/api";
import type { ModelQuality as ModelRow } from "../contracts";
import { qualityText } from "./quality-text";

/** The tenant's models side by side (GET /api/scores/quality): calls and cost next to feedback and scores. */
export function ModelQuality() {
  const { t, locale } = useI18n();
  const [days, setDays] = useState(7);
  const data = useLoad((signal) =>
    fetchJson<{ models: ModelRow[] }>(`/api/scores/quality?days=${days}`, signal),
  );
  const [loadedDays, setLoadedDays] = useState(days);
  if (loadedDays !== days) {
    setLoadedDays(days);
    data.reload();
  }
  const models = data.data?.models ?? [];
  const cell = "px-3 py-2 text-right tabular-nums";
  return (
    <section className={`${CARD} p-4`} data-testid="model-quality" aria-labelledby="model-quality-title">
      <h2 id="model-quality-title" className="text-base font-semibold">
        {t("sc.quality.title")}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("sc.quality.lead")}</p>
      <div className="mt-3">
        <DaysSelect value={days} onChange={setDays} />
      </div>
      {data.loading && !data.data ? (
        <LoadingBlock />
      ) : !models.length ? (
        <p className="mt-3 text-sm text-slate-500" data-testid="model-quality-empty">
          {t("sc.quality.none")}
        </p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="w-full min-w-[36rem] text-sm" data-testid="model-quality-table">
            <thead className="text-xs text-slate-500">
              <tr>
                <th className="px-3 py-2 text-left font-medium">{t("sc.quality.model")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.calls")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.costPerCall")}</th>
                <th className="px-3 py-2 text-right font-medium">{t("promptStats.cost")}</th>
                <th className="px-3 py-2 text-left font-medium">{t("promptStats.quality")}</th>
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr
                  key={m.model}
                  className="border-t border-slate-100 dark:border-slate-800"
                  data-model={m.model}
                >
                  <td className="px-3 py-2 font-mono text-xs break-all">{m.model}</td>
                  <td className={cell}>{m.calls.toLocaleString(locale === "zh" ? "zh-CN" : "en-US")}</td>
                  <td className={cell}>
                    <Money value={m.costPerCall} empty="—" />
                  </td>
                  <td className={cell}>
                    <Money value={m.cost} />
                  </td>
                  <td className="px-3 py-2 text-left text-xs" data-testid="model-quality-scores">
                    {qualityText(m.scores, locale)}
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

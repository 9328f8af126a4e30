"use client";

import { useState } from "react";
import { CARD } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type ComparedRow, targetLabel } from "../../compare";
import type { RunItemView, TargetSummary } from "../../contracts";
import { expectedSummary, inputSummary } from "../../import";
import { HEAD_CELL } from "./format";
import { OutputBody } from "./item-result";

function OutputCell({
  runId,
  cell,
  reference,
}: {
  runId: string;
  cell: RunItemView | null;
  reference: string | null;
}) {
  if (!cell) return <td className="px-3 py-2 text-slate-400">—</td>;
  return (
    <td
      data-testid="item-output"
      data-target-index={cell.targetIndex}
      className="min-w-56 px-3 py-2 align-top"
    >
      <OutputBody runId={runId} cell={cell} reference={reference} />
    </td>
  );
}

/** An item on a narrow screen: its input and expected output, then each target's result under the other. */
function ItemCard({ runId, row, targets }: { runId: string; row: ComparedRow; targets: TargetSummary[] }) {
  const { t } = useI18n();
  const reference = row.cells[0]?.output ?? null;
  return (
    <li
      data-testid="run-item-card"
      data-disagree={row.disagree}
      className={`space-y-2 p-3 ${row.disagree ? "bg-amber-50/60 dark:bg-amber-950/20" : ""}`}
    >
      <p className="text-sm font-medium break-words">{inputSummary(row.input)}</p>
      <p className="text-xs text-slate-500">
        {t("evals.expected")}: {expectedSummary(row.expected) || "—"}
      </p>
      {row.cells.map((cell, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: one cell per target index
          key={i}
          className="border-l-2 border-slate-200 pl-2 dark:border-slate-700"
        >
          <p className="font-mono text-xs text-slate-500">{targets[i] ? targetLabel(targets[i]) : i}</p>
          {cell ? <OutputBody runId={runId} cell={cell} reference={i === 0 ? null : reference} /> : "—"}
        </div>
      ))}
    </li>
  );
}

/**
 * Every item side by side across the targets: a table on wide screens, cards on narrow ones; optionally only
 * the items the targets disagree on.
 */
export function ItemTable({
  runId,
  rows,
  targets,
}: {
  runId: string;
  rows: ComparedRow[];
  targets: TargetSummary[];
}) {
  const { t } = useI18n();
  const [onlyDisagree, setOnlyDisagree] = useState(false);
  const shown = onlyDisagree ? rows.filter((r) => r.disagree) : rows;
  const disagreeing = rows.filter((r) => r.disagree).length;
  return (
    <section className="min-w-0 space-y-2" aria-labelledby="run-items-title">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="run-items-title" className="text-lg font-semibold">
          {t("evals.items")}
        </h2>
        {targets.length > 1 && (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              data-testid="only-disagree"
              checked={onlyDisagree}
              onChange={(e) => setOnlyDisagree(e.target.checked)}
            />
            {t("evals.onlyDisagree", { n: String(disagreeing) })}
          </label>
        )}
      </div>
      {targets.length > 1 && <p className="text-xs text-slate-500">{t("evals.diffHint")}</p>}
      <ul
        className={`${CARD} divide-y divide-slate-100 md:hidden dark:divide-slate-800`}
        data-testid="run-item-cards"
      >
        {shown.length === 0 && (
          <li className="px-3 py-4 text-center text-sm text-slate-500">
            {onlyDisagree ? t("evals.noDisagreement") : t("evals.noItems")}
          </li>
        )}
        {shown.map((row) => (
          <ItemCard key={row.itemId} runId={runId} row={row} targets={targets} />
        ))}
      </ul>
      <div className={`${CARD} hidden overflow-x-auto md:block`}>
        <table data-testid="run-items" className="w-full text-left text-sm">
          <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
            <tr>
              <th className={HEAD_CELL}>{t("evals.input")}</th>
              <th className={HEAD_CELL}>{t("evals.expected")}</th>
              {targets.map((target) => (
                <th key={target.index} className={`${HEAD_CELL} font-mono`}>
                  {targetLabel(target)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={2 + targets.length} className="px-3 py-4 text-center text-slate-500">
                  {onlyDisagree ? t("evals.noDisagreement") : t("evals.noItems")}
                </td>
              </tr>
            )}
            {shown.map((row) => {
              const reference = row.cells[0]?.output ?? null;
              return (
                <tr
                  key={row.itemId}
                  data-testid="run-item"
                  data-disagree={row.disagree}
                  className={`border-t border-slate-100 align-top dark:border-slate-800 ${row.disagree ? "bg-amber-50/60 dark:bg-amber-950/20" : ""}`}
                >
                  <td className="max-w-64 px-3 py-2">
                    <span className="line-clamp-4 break-words">{inputSummary(row.input)}</span>
                  </td>
                  <td className="max-w-48 px-3 py-2">
                    <span className="line-clamp-4 break-words">{expectedSummary(row.expected) || "—"}</span>
                  </td>
                  {row.cells.map((cell, i) => (
                    <OutputCell
                      runId={runId}
                      // biome-ignore lint/suspicious/noArrayIndexKey: one cell per target index
                      key={i}
                      cell={cell}
                      reference={i === 0 ? null : reference}
                    />
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

import { FEEDBACK_SCORE, type ModelQuality } from "../contracts";

/** Score means in one line: the thumbs as the share up, other scores as their mean, each with its count. */
export function qualityText(scores: ModelQuality["scores"], locale: string): string {
  if (!scores.length) return "—";
  const tag = locale === "zh" ? "zh-CN" : "en-US";
  const percent = new Intl.NumberFormat(tag, { style: "percent", maximumFractionDigits: 1 });
  const number = new Intl.NumberFormat(tag, { maximumFractionDigits: 2 });
  return scores
    .map((s) =>
      s.name === FEEDBACK_SCORE
        ? `👍 ${percent.format(s.mean)} (${s.count})`
        : `${s.name} ${number.format(s.mean)} (${s.count})`,
    )
    .join(" · ");
}

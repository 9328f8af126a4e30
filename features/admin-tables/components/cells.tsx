"use client";

import Link from "next/link";
import { useI18n } from "@/components/i18n";
import { JsonView } from "@/components/ui/json-view";
import { Money } from "@/components/ui/money";
import type { CellType, Row } from "@/features/admin-tables/contracts";
import { useBadgeLabel } from "./badges";
import {
  fillHref,
  formatDateTime,
  formatDuration,
  formatTokens,
  isBlank,
  jsonPreview,
  pick,
  toDate,
} from "./format";

const TONES = {
  green: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  red: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200",
  amber: "bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200",
  violet: "bg-violet-100 text-violet-800 dark:bg-violet-900/50 dark:text-violet-200",
  slate: "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200",
  neutral:
    "bg-white text-slate-700 ring-1 ring-inset ring-slate-300 dark:bg-slate-900 dark:text-slate-300 dark:ring-slate-600",
} as const;

// Statuses of turns and tool calls, and the audit event types that mean the same thing.
const TONE_OF: Record<string, keyof typeof TONES> = {
  success: "green",
  ok: "green",
  failed: "red",
  error: "red",
  stopped: "amber",
  cancelled: "amber",
  stop: "amber",
  fallback: "amber",
  limit: "violet",
  guardrail: "violet",
  interrupted: "slate",
  running: "slate",
  // Tenants and members.
  active: "green",
  disabled: "red",
  admin: "violet",
  // How a ledger row's cost was reached.
  priced: "green",
  unpriced: "amber",
  assumed: "violet",
  // A deployment on the routing page: its breaker closed, open, or letting its one probe through.
  healthy: "green",
  cooling: "red",
  "half-open": "amber",
};

const PILL = "inline-block rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap";
/**
 * A raw value (a status, a role) as a coloured pill, in the viewer's language when the page's schema labels
 * it (`field` says where to look: segments, select options, `badges`); the raw value stays in data-value.
 */
export function Badge({ value, field }: { value: string; field?: string }) {
  const { locale } = useI18n();
  const label = useBadgeLabel(field, value);
  const toneName = TONE_OF[value.toLowerCase()] ?? "neutral";
  return (
    <span
      data-tone={toneName}
      data-value={value}
      title={label ? value : undefined}
      className={`${PILL} ${TONES[toneName]}`}
    >
      {label ? pick(label, locale) : value}
    </span>
  );
}

/** The widest a table cell's text gets before it is cut, unless its column says otherwise. */
const DEFAULT_WIDTH = 320;

/** Long text is cut to one line in the table (full text on hover) and wraps in the detail. */
const TextValue = ({ text, full, width }: { text: string; full?: boolean; width?: number }) =>
  full ? (
    <span className="break-words whitespace-pre-wrap">{text}</span>
  ) : (
    <span className="block truncate" style={{ maxWidth: width ?? DEFAULT_WIDTH }} title={text}>
      {text}
    </span>
  );

const Empty = () => <span className="text-slate-400 dark:text-slate-500">—</span>;

/**
 * One value rendered by its cell type; `full` is the detail drawer's roomier form (pretty JSON). `field` names
 * the value for badge labels; `width` caps a table cell (the rest on hover).
 */
export function CellValue(props: {
  cell: CellType;
  value: unknown;
  row: Row;
  field?: string;
  href?: string;
  width?: number;
  full?: boolean;
}) {
  const { locale, t } = useI18n();
  const { cell, value } = props;
  if (cell === "money") {
    // A ledger row says how its cost was reached: an unknown cost is said so, never shown as $0 or a dash.
    const status = props.row.costStatus;
    if (status === "unpriced" && isBlank(value))
      return (
        <span data-testid="cost-unpriced" title={t("cost.unpricedHint")} className={`${PILL} ${TONES.amber}`}>
          {t("cost.unpriced")}
        </span>
      );
    if (status === "assumed")
      return (
        <span className="inline-flex items-center gap-1 whitespace-nowrap" title={t("cost.assumedHint")}>
          <Money value={value} />
          <span data-testid="cost-assumed" className={`${PILL} ${TONES.violet}`}>
            {t("cost.assumed")}
          </span>
        </span>
      );
    return <Money value={value} />;
  }
  if (isBlank(value)) return <Empty />;
  switch (cell) {
    case "badge":
      return <Badge value={String(value)} field={props.field} />;
    case "badges": {
      const values = Array.isArray(value) ? value.map(String) : [String(value)];
      if (!values.length) return <Empty />;
      return (
        <span className={`flex gap-1 ${props.full ? "flex-wrap" : ""}`}>
          {values.map((v) => (
            <Badge key={v} value={v} field={props.field} />
          ))}
        </span>
      );
    }
    case "datetime": {
      const date = toDate(value);
      if (!date) return <TextValue text={String(value)} full={props.full} width={props.width} />;
      const iso = date.toISOString();
      return (
        <time dateTime={iso} title={iso} className="whitespace-nowrap">
          {formatDateTime(date, locale)}
        </time>
      );
    }
    case "duration":
      return <span className="tabular-nums whitespace-nowrap">{formatDuration(value)}</span>;
    case "tokens":
      return <span className="tabular-nums whitespace-nowrap">{formatTokens(value, locale)}</span>;
    case "json":
      return props.full ? (
        <JsonView value={value} />
      ) : (
        <code
          className="block truncate font-mono text-xs"
          style={{ maxWidth: props.width ?? DEFAULT_WIDTH }}
          title={jsonPreview(value, 2000)}
        >
          {jsonPreview(value)}
        </code>
      );
    case "link": {
      const href = props.href ? fillHref(props.href, props.row) : null;
      if (!href) return <TextValue text={String(value)} full={props.full} width={props.width} />;
      return (
        <Link
          href={href}
          title={String(value)}
          style={props.full ? undefined : { maxWidth: props.width ?? DEFAULT_WIDTH }}
          className="block truncate whitespace-nowrap text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400"
        >
          {String(value)}
        </Link>
      );
    }
    default:
      return (
        <TextValue
          text={typeof value === "object" ? jsonPreview(value) : String(value)}
          full={props.full}
          width={props.width}
        />
      );
  }
}

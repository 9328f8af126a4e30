"use client";

import { type KeyboardEvent, useEffect, useId, useRef } from "react";
import { useI18n } from "@/components/i18n";
import { JsonView } from "@/components/ui/json-view";
import type { AssistantDef, DetailDef, Localized, Row, RowLinkDef } from "@/features/admin-tables/contracts";
import { AskAssistantButton, shortId } from "@/features/drawer/components";
import { type Detail, detailUrl } from "./api";
import { Badge, CellValue } from "./cells";
import { ErrorNote } from "./error-note";
import { formatDateTime, pick, toDate, toNumber } from "./format";
import { RowLinks } from "./row-actions";
import { useApi } from "./use-api";

const FOCUSABLE = 'a[href], button:not([disabled]), input, select, textarea, [tabindex]:not([tabindex="-1"])';

/** Focus moves to the close button on open and back where it was on close; Tab stays inside; Escape closes. */
function useDialogFocus(onClose: () => void) {
  const closeRef = useRef<HTMLButtonElement>(null);
  // The latest onClose, without re-running the open/close effect (which moves focus) when it changes.
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === "Escape" && !e.defaultPrevented) {
        e.preventDefault();
        onCloseRef.current();
      }
    };
    document.addEventListener("keydown", onKey);
    // The page behind must not scroll under the drawer.
    const overflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    return () => {
      document.removeEventListener("keydown", onKey);
      document.body.style.overflow = overflow;
      // Back where it was, unless something else took focus on purpose (Ask the assistant focuses the drawer).
      const lost = !document.activeElement || document.activeElement === document.body;
      if (previous?.isConnected && lost) previous.focus();
    };
  }, []);

  const trapTab = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== "Tab") return;
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last?.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first?.focus();
    }
  };
  return { closeRef, trapTab };
}

function EventTimeline({ title, events }: { title: Localized; events: Row[] }) {
  const { t, locale } = useI18n();
  const ordered = [...events].sort((a, b) => toNumber(a.seq) - toNumber(b.seq));
  return (
    <section className="space-y-3">
      <h3 className="text-sm font-semibold">{pick(title, locale)}</h3>
      {ordered.length === 0 ? (
        <p className="text-sm text-slate-500">{t("schema.noEvents")}</p>
      ) : (
        <ol className="space-y-4 border-l-2 border-slate-200 pl-4 dark:border-slate-700">
          {ordered.map((event, index) => {
            const at = toDate(event.createdAt);
            return (
              <li
                key={String(event.seq ?? index)}
                data-testid="detail-event"
                data-seq={String(event.seq ?? "")}
                className="relative"
              >
                <span
                  aria-hidden="true"
                  className="absolute top-1.5 -left-[1.3rem] h-2 w-2 rounded-full bg-indigo-500 ring-2 ring-white dark:ring-slate-950"
                />
                <div className="flex flex-wrap items-center gap-2 text-xs">
                  <span className="font-mono text-slate-500">#{String(event.seq ?? "?")}</span>
                  <Badge value={String(event.type ?? "?")} />
                  {at && (
                    <time dateTime={at.toISOString()} title={at.toISOString()} className="text-slate-500">
                      {formatDateTime(at, locale)}
                    </time>
                  )}
                </div>
                <JsonView value={event.payload ?? null} className="mt-1" />
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

function DetailBody({ def, detail }: { def: DetailDef; detail: Detail }) {
  const { locale } = useI18n();
  return (
    <>
      {def.sections.map((section) => (
        <section key={section.title.en} className="space-y-2">
          <h3 className="text-sm font-semibold">{pick(section.title, locale)}</h3>
          <dl className="grid grid-cols-[minmax(6rem,auto)_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm">
            {section.fields.map((field) => (
              <div key={field.field} className="contents">
                <dt className="text-slate-500 dark:text-slate-400">{pick(field.label, locale)}</dt>
                <dd className="min-w-0 break-words">
                  <CellValue
                    cell={field.cell}
                    field={field.field}
                    value={detail.row[field.field]}
                    row={detail.row}
                    href={field.href}
                    full
                  />
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
      {def.events && <EventTimeline title={def.events.title} events={detail.events ?? []} />}
    </>
  );
}

/** "Ask the assistant" about this row: the detail closes, and the drawer opens with the row as a chip. */
function AskRow({ assistant, row, onAsk }: { assistant: AssistantDef; row: Row; onAsk: () => void }) {
  const { t } = useI18n();
  const id = row[assistant.idField];
  if (id === null || id === undefined || id === "") return null;
  const label = t(`context.label.${assistant.type}`, { id: shortId(String(id)), name: "", version: "" });
  return (
    <AskAssistantButton
      item={{ type: assistant.type, id: String(id), label }}
      before={onAsk}
      className="inline-flex items-center gap-1 rounded-md border border-indigo-300 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-indigo-800 dark:text-indigo-300 dark:hover:bg-indigo-950/50"
    />
  );
}

/** The row's detail on the right (full width on small screens); mounted per id, so nothing stale shows. */
export function DetailDrawer(props: {
  schemaKey: string;
  def: DetailDef;
  id: string;
  onClose: () => void;
  links?: RowLinkDef[];
  assistant?: AssistantDef;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const { closeRef, trapTab } = useDialogFocus(props.onClose);
  const { data, error, loading } = useApi<Detail>(detailUrl(props.schemaKey, props.id));

  return (
    <div className="fixed inset-0 z-40 flex justify-end">
      <div aria-hidden="true" className="absolute inset-0 bg-slate-900/40" onClick={props.onClose} />
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby={headingId}
        aria-busy={loading}
        data-testid="detail-drawer"
        onKeyDown={trapTab}
        className="relative flex h-full w-full flex-col border-l border-slate-200 bg-white text-slate-900 shadow-2xl sm:w-[36rem] dark:border-slate-800 dark:bg-slate-950 dark:text-slate-100"
      >
        {/* On a narrow screen the links and "Ask the assistant" wrap under the title. */}
        <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
          <h2 id={headingId} className="flex min-w-0 flex-1 items-baseline gap-2">
            <span className="font-semibold">{t("schema.details")}</span>
            <span className="truncate font-mono text-xs text-slate-500">{props.id}</span>
          </h2>
          {props.links && data && <RowLinks links={props.links} row={data.row} />}
          {props.assistant && data && (
            <AskRow assistant={props.assistant} row={data.row} onAsk={props.onClose} />
          )}
          <button
            ref={closeRef}
            type="button"
            data-testid="detail-close"
            aria-label={t("schema.closeDetails")}
            title={t("schema.closeDetails")}
            onClick={props.onClose}
            className="rounded-md px-2 py-1 text-lg leading-none text-slate-500 hover:bg-slate-100 hover:text-slate-800 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100"
          >
            ×
          </button>
        </div>
        <div className="min-h-0 flex-1 space-y-6 overflow-y-auto px-4 py-4">
          {error ? (
            error.status === 404 ? (
              <p data-testid="detail-not-found" className="text-sm text-slate-600 dark:text-slate-300">
                {t("schema.notFound")}
              </p>
            ) : (
              <ErrorNote message={error.message} />
            )
          ) : data ? (
            <DetailBody def={props.def} detail={data} />
          ) : (
            <p className="text-sm text-slate-500">{t("schema.loading")}</p>
          )}
        </div>
      </div>
    </div>
  );
}

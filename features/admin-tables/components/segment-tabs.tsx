"use client";

import { type KeyboardEvent, useRef } from "react";
import { useI18n } from "@/components/i18n";
import type { SegmentDef } from "@/features/admin-tables/contracts";
import { pick } from "./format";

/** "All" plus one tab per segment value; the arrow keys move between tabs (the ARIA tabs pattern). */
export function SegmentTabs(props: {
  segments: SegmentDef;
  active: string | null;
  onSelect: (value: string | null) => void;
}) {
  const { t, locale } = useI18n();
  const listRef = useRef<HTMLDivElement>(null);
  const tabs = [
    { value: "", label: pick(props.segments.allLabel, locale) },
    ...props.segments.values.map((v) => ({ value: v.value, label: pick(v.label, locale) })),
  ];
  const active = props.active ?? "";

  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (index + step + tabs.length) % tabs.length;
    listRef.current?.querySelectorAll<HTMLButtonElement>("[role=tab]")[next]?.focus();
    props.onSelect(tabs[next]!.value || null);
  };

  return (
    <div
      ref={listRef}
      role="tablist"
      aria-label={t("schema.segments")}
      className="flex gap-1 overflow-x-auto border-b border-slate-200 dark:border-slate-800"
    >
      {tabs.map((tab, index) => {
        const selected = tab.value === active;
        return (
          <button
            key={tab.value}
            type="button"
            role="tab"
            data-testid="segment-tab"
            data-value={tab.value}
            aria-selected={selected}
            tabIndex={selected ? 0 : -1}
            onClick={() => !selected && props.onSelect(tab.value || null)}
            onKeyDown={(e) => onKeyDown(e, index)}
            className={`-mb-px border-b-2 px-3 py-2 text-sm whitespace-nowrap ${
              selected
                ? "border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
            }`}
          >
            {tab.label}
          </button>
        );
      })}
    </div>
  );
}

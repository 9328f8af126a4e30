"use client";

import { createContext, type ReactNode, useContext, useMemo } from "react";
import type { Localized, PageSchema } from "@/features/admin-tables/contracts";

type BadgeLabelMap = Map<string, Map<string, Localized>>;

/**
 * Every label a page's schema already gives a raw value, by field: its segment values, its select filters'
 * options, then its own `badges` map (which wins). A badge shows the label in the viewer's language.
 */
export function badgeLabelsOf(schema: PageSchema): BadgeLabelMap {
  const labels: BadgeLabelMap = new Map();
  const add = (field: string, value: string, label: Localized) => {
    if (!labels.has(field)) labels.set(field, new Map());
    labels.get(field)!.set(value, label);
  };
  for (const v of schema.segments?.values ?? []) add(schema.segments!.field, v.value, v.label);
  for (const f of schema.filters ?? [])
    if (f.type === "select") for (const o of f.options) add(f.field, o.value, o.label);
  for (const [field, values] of Object.entries(schema.badges ?? {}))
    for (const [value, label] of Object.entries(values)) add(field, value, label);
  return labels;
}

const BadgeLabels = createContext<BadgeLabelMap>(new Map());

export function BadgeLabelsProvider(props: { schema: PageSchema; children: ReactNode }) {
  const labels = useMemo(() => badgeLabelsOf(props.schema), [props.schema]);
  return <BadgeLabels.Provider value={labels}>{props.children}</BadgeLabels.Provider>;
}

/** The schema's label for a field's raw value, when it has one. */
export function useBadgeLabel(field: string | undefined, value: string): Localized | undefined {
  const labels = useContext(BadgeLabels);
  return field ? labels.get(field)?.get(value) : undefined;
}

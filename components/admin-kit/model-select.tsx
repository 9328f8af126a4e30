"use client";

import type { SelectHTMLAttributes } from "react";
import { INPUT } from "@/components/admin-kit/ui";

/**
 * A select of the gateway's model aliases. Any other select attribute (id, test id, aria wiring from a Field,
 * disabled) is passed through; `className` replaces the default INPUT.
 */
export function ModelAliasSelect<M extends { alias: string }>(
  props: Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange" | "children"> & {
    models: readonly M[];
    value: string;
    onChange: (alias: string) => void;
    /** The first option, for no alias chosen (its value is ""); none when not given. */
    emptyLabel?: string;
    /** Keeps a chosen alias the gateway no longer lists, as its own last option, instead of hiding it. */
    keepUnlisted?: boolean;
    /** How an alias reads in the list: the alias itself unless given. */
    optionLabel?: (model: M) => string;
  },
) {
  const { models, value, onChange, emptyLabel, keepUnlisted, optionLabel, className, ...select } = props;
  return (
    <select
      {...select}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      className={className ?? INPUT}
    >
      {emptyLabel !== undefined && <option value="">{emptyLabel}</option>}
      {models.map((m) => (
        <option key={m.alias} value={m.alias}>
          {optionLabel ? optionLabel(m) : m.alias}
        </option>
      ))}
      {keepUnlisted && value && !models.some((m) => m.alias === value) && (
        <option value={value}>{value}</option>
      )}
    </select>
  );
}

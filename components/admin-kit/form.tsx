"use client";

import type { ReactNode } from "react";
import { FieldError, INPUT, LABEL } from "@/components/admin-kit/ui";

/** One labelled input with its hint and the server's messages for it (aria-described, red when invalid). */
export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  messages?: string[];
  type?: "text" | "email" | "password" | "number";
  autoComplete?: string;
  placeholder?: string;
  hint?: ReactNode;
  min?: number;
  max?: number;
}) {
  const inputId = `${props.id}-${props.name}`;
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const invalid = (props.messages?.length ?? 0) > 0;
  const describedBy = [props.hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(" ");
  return (
    <div className="min-w-0">
      <label htmlFor={inputId} className={LABEL}>
        {props.label}
      </label>
      <input
        id={inputId}
        name={props.name}
        data-testid={`field-${props.name}`}
        type={props.type ?? "text"}
        value={props.value}
        min={props.min}
        max={props.max}
        autoComplete={props.autoComplete ?? "off"}
        placeholder={props.placeholder}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy || undefined}
        onChange={(e) => props.onChange(e.target.value)}
        className={`mt-1 ${INPUT}`}
      />
      {props.hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {props.hint}
        </p>
      )}
      <FieldError id={errorId} field={props.name} messages={props.messages} />
    </div>
  );
}

/** A short success line, announced to screen readers. */
export function DoneNote({ text, testId }: { text: string | null; testId: string }) {
  return (
    <p role="status" data-testid={testId} className="text-sm text-emerald-700 dark:text-emerald-300">
      {text ? `✓ ${text}` : ""}
    </p>
  );
}

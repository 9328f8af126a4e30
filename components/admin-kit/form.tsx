"use client";

import type { ReactNode } from "react";
import { FieldError, INPUT, LABEL } from "@/components/admin-kit/ui";

/** What ties a control to its label, hint and error: spread onto the input, select or textarea. */
export type ControlWiring = {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
};

/**
 * A label, one control, its hint and the messages about it. The control is the caller's (`children` gets the
 * wiring to spread on it); the hint and the error are named by its aria-describedby, hint first.
 */
export function Field(props: {
  /** The control's id; the hint's and the error's are this with "-hint" and "-error". */
  controlId: string;
  label: ReactNode;
  /** What the messages are about: the error's test id is `field-error-<field>`. */
  field: string;
  messages?: string[];
  hint?: ReactNode;
  /** Each message on its own line, for lists whose messages each name an entry. */
  listMessages?: boolean;
  /** The wrapper's classes ("min-w-0" unless given). */
  className?: string;
  labelClassName?: string;
  children: (wiring: ControlWiring) => ReactNode;
}) {
  const errorId = `${props.controlId}-error`;
  const hintId = `${props.controlId}-hint`;
  const invalid = (props.messages?.length ?? 0) > 0;
  const describedBy = [props.hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(" ");
  return (
    <div className={props.className ?? "min-w-0"}>
      <label
        htmlFor={props.controlId}
        className={props.labelClassName ? `${LABEL} ${props.labelClassName}` : LABEL}
      >
        {props.label}
      </label>
      {props.children({
        id: props.controlId,
        "aria-invalid": invalid || undefined,
        "aria-describedby": describedBy || undefined,
      })}
      {props.hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {props.hint}
        </p>
      )}
      <FieldError id={errorId} field={props.field} messages={props.messages} list={props.listMessages} />
    </div>
  );
}

/** What the labelled fields below share: the control's id is `<id>-<name>`, its test id `field-<name>`. */
type FieldProps = {
  /** The form's id (from useId). */
  id: string;
  /** The field's name: the control's name, and what its messages are about. */
  name: string;
  label: ReactNode;
  messages?: string[];
  hint?: ReactNode;
  listMessages?: boolean;
  /** The control's test id, when not `field-<name>`. */
  testId?: string;
  /** Classes added to the control's own (a font, tabular figures). */
  controlClassName?: string;
  /** The wrapper's classes ("min-w-0" unless given). */
  className?: string;
  labelClassName?: string;
  disabled?: boolean;
};

const controlClass = (extra?: string) => (extra ? `mt-1 ${INPUT} ${extra}` : `mt-1 ${INPUT}`);

function frame(props: FieldProps) {
  return {
    controlId: `${props.id}-${props.name}`,
    label: props.label,
    field: props.name,
    messages: props.messages,
    hint: props.hint,
    listMessages: props.listMessages,
    className: props.className,
    labelClassName: props.labelClassName,
  };
}

/** One labelled input with its hint and the messages about it (aria-described, red when invalid). */
export function TextField(
  props: FieldProps & {
    value: string;
    onChange: (value: string) => void;
    type?: "text" | "email" | "password" | "number";
    inputMode?: "numeric" | "decimal";
    autoComplete?: string;
    spellCheck?: boolean;
    placeholder?: string;
    min?: number;
    max?: number;
    step?: string;
  },
) {
  return (
    <Field {...frame(props)}>
      {(wiring) => (
        <input
          {...wiring}
          name={props.name}
          data-testid={props.testId ?? `field-${props.name}`}
          type={props.type ?? "text"}
          inputMode={props.inputMode}
          value={props.value}
          min={props.min}
          max={props.max}
          step={props.step}
          disabled={props.disabled}
          autoComplete={props.autoComplete ?? "off"}
          spellCheck={props.spellCheck}
          placeholder={props.placeholder}
          onChange={(e) => props.onChange(e.target.value)}
          className={controlClass(props.controlClassName)}
        />
      )}
    </Field>
  );
}

/** A labelled textarea with its hint and the messages about it. */
export function TextAreaField(
  props: FieldProps & {
    value: string;
    onChange: (value: string) => void;
    rows: number;
    placeholder?: string;
    spellCheck?: boolean;
  },
) {
  return (
    <Field {...frame(props)}>
      {(wiring) => (
        <textarea
          {...wiring}
          name={props.name}
          data-testid={props.testId ?? `field-${props.name}`}
          rows={props.rows}
          value={props.value}
          disabled={props.disabled}
          spellCheck={props.spellCheck}
          placeholder={props.placeholder}
          onChange={(e) => props.onChange(e.target.value)}
          className={controlClass(props.controlClassName)}
        />
      )}
    </Field>
  );
}

/** A labelled select (its options are the children) with its hint and the messages about it. */
export function SelectField(
  props: FieldProps & {
    value: string;
    onChange: (value: string) => void;
    children: ReactNode;
  },
) {
  return (
    <Field {...frame(props)}>
      {(wiring) => (
        <select
          {...wiring}
          name={props.name}
          data-testid={props.testId ?? `field-${props.name}`}
          value={props.value}
          disabled={props.disabled}
          onChange={(e) => props.onChange(e.target.value)}
          className={controlClass(props.controlClassName)}
        >
          {props.children}
        </select>
      )}
    </Field>
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

"use client";

import type { ReactNode } from "react";
import { BUTTON, BUTTON_SM, DANGER, DANGER_SM } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";

/** One button of the pair: what it says, its accessible name when that must name the row, its test id. */
type ActionButton = { label: string; ariaLabel?: string; testId: string };

/**
 * A destructive action asked for twice, in place: its button (after the row's other actions, `children`)
 * turns into Confirm / Cancel, with an optional warning above them. The caller keeps `asking`, so one row of a
 * list asks at a time. Renders a fragment: the caller's flex row lays the buttons out.
 */
export function InlineConfirm(props: {
  asking: boolean;
  onAsk: () => void;
  onCancel: () => void;
  onConfirm: () => void;
  /** The action: shown red until asked. */
  action: ActionButton;
  confirm: ActionButton;
  cancelTestId: string;
  /** Confirm is disabled while this is true (the action is running). */
  busy?: boolean;
  warning?: string;
  /** Small buttons, for a row's line of actions in a dense table. */
  small?: boolean;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const button = props.small ? BUTTON_SM : BUTTON;
  const danger = props.small ? DANGER_SM : DANGER;
  if (!props.asking)
    return (
      <>
        {props.children}
        <button
          type="button"
          data-testid={props.action.testId}
          aria-label={props.action.ariaLabel}
          onClick={props.onAsk}
          className={`${button} text-red-700 dark:text-red-300`}
        >
          {props.action.label}
        </button>
      </>
    );
  return (
    <>
      {props.warning && (
        <p className="ml-auto max-w-56 basis-full text-right text-xs text-red-700 dark:text-red-300">
          {props.warning}
        </p>
      )}
      <button
        type="button"
        data-testid={props.confirm.testId}
        aria-label={props.confirm.ariaLabel}
        disabled={props.busy}
        onClick={props.onConfirm}
        className={danger}
      >
        {props.confirm.label}
      </button>
      <button type="button" data-testid={props.cancelTestId} onClick={props.onCancel} className={button}>
        {t("gov.cancel")}
      </button>
    </>
  );
}

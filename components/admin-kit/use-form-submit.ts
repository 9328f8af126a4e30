"use client";

import { useState } from "react";
import { type ApiError, toApiError } from "@/lib/client/api";
import { type FieldMessages, otherMessages } from "./ui";

/** What a failed save says: the messages under the fields and the line for the whole form (null: none). */
export type Failure = { fields: FieldMessages; formError: string | null };

/**
 * The state every save form keeps: the server's (or the form's own) messages per field, a line for the whole
 * form and whether a save is running. `explain` turns a failed save into what the form says.
 */
export function useFormSubmit(explain: (error: ApiError) => Failure) {
  const [fields, setFields] = useState<FieldMessages>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  /** Clears what the last attempt said; `next` is the form's own messages, when it found any before sending. */
  const reset = (next: FieldMessages = {}) => {
    setFields(next);
    setFormError(null);
  };

  /** Runs one save, busy meanwhile; a failure is said through `explain`. */
  const submit = async (save: () => Promise<void>) => {
    setSaving(true);
    try {
      await save();
    } catch (error) {
      const failure = explain(toApiError(error));
      setFields(failure.fields);
      setFormError(failure.formError);
    } finally {
      setSaving(false);
    }
  };

  return { fields, formError, saving, reset, submit };
}

/**
 * Messages under the fields the form shows (`shown`); the server's message as well when none of them has one,
 * and the messages for fields the form has no input for, so none is dropped unseen.
 */
export const explainWithFields =
  (shown: readonly string[]) =>
  (error: ApiError): Failure => {
    const rest = otherMessages(error.fields, shown);
    const formError = !shown.some((name) => error.fields[name])
      ? [error.message, ...rest].join(" ")
      : rest.length
        ? rest.join(" ")
        : null;
    return { fields: error.fields, formError };
  };

/** The messages per field when the server sent any, else its message. */
export const explainFieldsOrMessage = (error: ApiError): Failure =>
  Object.keys(error.fields).length
    ? { fields: error.fields, formError: null }
    : { fields: {}, formError: error.message };

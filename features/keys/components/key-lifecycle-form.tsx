"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { BUTTON, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { ApiError, Json } from "@/lib/client/api";
import { keysApi } from "../client";
import type { RotatedKey } from "../contracts";
import { daysFromNow, parseCount } from "../expiry";

/** The server's messages about `field` under `shown` (the input the admin typed into), else its message. */
const explainAs =
  (field: string, shown: string) =>
  (error: ApiError): Failure =>
    error.fields[field]
      ? { fields: { [shown]: error.fields[field] }, formError: null }
      : { fields: {}, formError: error.message };

/**
 * A live key's expiry (days from now, or never) and its rotation (the overlap the old key keeps working); the
 * parent shows the successor's secret once.
 */
export function KeyLifecycleForm(props: {
  keyId: string;
  keyName: string;
  /** The successor's name when the key was rotated already (it cannot be rotated again). */
  rotatedToName: string | null;
  onSaved: () => void;
  onRotated: (rotated: Json<RotatedKey>) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [never, setNever] = useState(false);
  const [days, setDays] = useState("90");
  const [overlap, setOverlap] = useState("24");
  const expiry = useFormSubmit(explainAs("expiresAt", "days"));
  const rotation = useFormSubmit(explainAs("overlapHours", "overlapHours"));

  const saveExpiry = async (e: FormEvent) => {
    e.preventDefault();
    const count = parseCount(days);
    if (!never && (count === null || !Number.isInteger(count) || count < 1 || count > 1826)) {
      expiry.reset({ days: [t("keyLife.daysInvalid")] });
      return;
    }
    expiry.reset();
    await expiry.submit(async () => {
      await keysApi.update(props.keyId, { expiresAt: never ? null : daysFromNow(count!, Date.now()) });
      props.onSaved();
      props.onClose();
    });
  };

  const rotate = async (e: FormEvent) => {
    e.preventDefault();
    const hours = parseCount(overlap);
    if (Number.isNaN(hours)) {
      rotation.reset({ overlapHours: [t("keyLife.overlap")] });
      return;
    }
    rotation.reset();
    await rotation.submit(async () => {
      const rotated = await keysApi.rotate(props.keyId, hours === null ? {} : { overlapHours: hours });
      props.onRotated(rotated);
      props.onClose();
    });
  };

  return (
    <div data-testid="key-lifecycle" className="grid gap-4 md:grid-cols-2">
      <form
        noValidate
        onSubmit={saveExpiry}
        aria-busy={expiry.saving}
        data-testid="key-expiry-form"
        className="min-w-0 space-y-2"
      >
        <p className="text-sm font-medium">{t("keyLife.expiryTitle", { name: props.keyName })}</p>
        <p className="text-xs text-slate-600 dark:text-slate-300">{t("keyLife.expiryLead")}</p>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            data-testid="key-expiry-never"
            checked={never}
            onChange={(e) => setNever(e.target.checked)}
          />
          {t("keyLife.neverExpires")}
        </label>
        {!never && (
          <TextField
            id={id}
            name="days"
            testId="key-expiry-days"
            type="number"
            inputMode="numeric"
            min={1}
            max={1826}
            label={t("keyLife.days")}
            value={days}
            messages={expiry.fields.days}
            onChange={setDays}
            className="max-w-48"
          />
        )}
        {expiry.formError && <ErrorNote message={expiry.formError} />}
        <button type="submit" data-testid="key-expiry-save" disabled={expiry.saving} className={PRIMARY}>
          {expiry.saving ? t("keyLife.saving") : t("keyLife.saveExpiry")}
        </button>
      </form>

      <form
        noValidate
        onSubmit={rotate}
        aria-busy={rotation.saving}
        data-testid="key-rotate-form"
        className="min-w-0 space-y-2"
      >
        <p className="text-sm font-medium">{t("keyLife.rotateTitle", { name: props.keyName })}</p>
        {props.rotatedToName !== null ? (
          <p data-testid="key-rotate-done" className="text-sm text-slate-600 dark:text-slate-300">
            {t("keyLife.alreadyRotated", { name: props.rotatedToName })}
          </p>
        ) : (
          <>
            <p className="text-xs text-slate-600 dark:text-slate-300">{t("keyLife.rotateLead")}</p>
            <TextField
              id={id}
              name="overlapHours"
              testId="key-rotate-overlap"
              type="number"
              inputMode="numeric"
              min={0}
              max={720}
              label={t("keyLife.overlap")}
              value={overlap}
              messages={rotation.fields.overlapHours}
              onChange={setOverlap}
              className="max-w-48"
            />
            {rotation.formError && <ErrorNote message={rotation.formError} />}
            <button
              type="submit"
              data-testid="key-rotate-submit"
              disabled={rotation.saving}
              className={PRIMARY}
            >
              {rotation.saving ? t("keyLife.rotating") : t("keyLife.rotate")}
            </button>
          </>
        )}
      </form>
      <div className="md:col-span-2">
        <button type="button" onClick={props.onClose} className={BUTTON}>
          {t("keyLife.close")}
        </button>
      </div>
    </div>
  );
}

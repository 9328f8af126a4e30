"use client";

import { useId, useState } from "react";
import { SelectField, TextAreaField } from "@/components/admin-kit/form";
import { ErrorNote, PRIMARY, Section } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { GUARDRAIL_STAGES, type GuardrailStage } from "@/lib/guardrails/types";
import { guardrailsApi } from "../client";
import type { GuardrailTestResult } from "../contracts";

/** Runs the saved rules of one stage over a text: the hits, the outcome and the text as it would go on. */
export function TestText() {
  const { t } = useI18n();
  const id = useId();
  const [stage, setStage] = useState<GuardrailStage>("input");
  const [text, setText] = useState("");
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<GuardrailTestResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const run = async () => {
    setRunning(true);
    setResult(null);
    setFailure(null);
    try {
      setResult(await guardrailsApi.test({ stage, text }));
    } catch (error) {
      setFailure(toApiError(error).message);
    } finally {
      setRunning(false);
    }
  };

  return (
    <Section title={t("gr.test.title")} lead={t("gr.test.lead")} testId="gr-test">
      <div className="grid min-w-0 gap-3 sm:grid-cols-[12rem_1fr]">
        <SelectField
          id={id}
          name="stage"
          testId="gr-test-stage"
          label={t("gr.test.stage")}
          value={stage}
          onChange={(v) => setStage(v as GuardrailStage)}
        >
          {GUARDRAIL_STAGES.map((s) => (
            <option key={s} value={s}>
              {t(`gr.stage.${s}`)}
            </option>
          ))}
        </SelectField>
        <TextAreaField
          id={id}
          name="text"
          testId="gr-test-text"
          label={t("gr.test.text")}
          rows={4}
          value={text}
          onChange={setText}
        />
      </div>
      <button
        type="button"
        data-testid="gr-test-run"
        disabled={running}
        onClick={() => void run()}
        className={PRIMARY}
      >
        {running ? t("gr.test.running") : t("gr.test.run")}
      </button>
      <div aria-live="polite" className="min-w-0 space-y-2">
        {result && (
          <div data-testid="gr-test-result" data-outcome={result.outcome} className="min-w-0 space-y-2">
            <p className="text-sm font-medium">
              {t("gr.test.outcome", { outcome: t(`gr.outcome.${result.outcome}`) })}
            </p>
            {result.hits.length ? (
              <ul data-testid="gr-test-hits" className="space-y-1 text-sm">
                {result.hits.map((hit) => (
                  <li
                    key={`${hit.ruleId}:${hit.start}:${hit.end}`}
                    data-testid="gr-test-hit"
                    className="break-words"
                  >
                    {t("gr.test.hit", {
                      rule: hit.ruleName,
                      entity: hit.entity,
                      start: String(hit.start),
                      end: String(hit.end),
                      action: t(`gr.action.${hit.action}`),
                    })}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-slate-500 dark:text-slate-400">{t("gr.test.none")}</p>
            )}
            <p className="text-xs font-medium text-slate-600 dark:text-slate-400">{t("gr.test.result")}</p>
            <pre
              data-testid="gr-test-output"
              className="max-h-72 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-all dark:bg-slate-950/40"
            >
              {result.text}
            </pre>
          </div>
        )}
        {failure && <ErrorNote message={failure} testId="gr-test-error" />}
      </div>
    </Section>
  );
}

"use client";

import Link from "next/link";
import { type FormEvent, useId, useState } from "react";
import { Field, TextAreaField } from "@/components/admin-kit/form";
import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { ErrorNote, Pill, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { formatDuration, formatTokens } from "@/features/admin-tables/components";
import { promptsApi } from "@/features/prompts/client";
import type { PlaygroundResult, PromptVersionView } from "@/features/prompts/contracts";
import { toApiError } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/gateway/types";
import { INPUT_FIXED } from "./styles";

/**
 * Runs the selected version with sample variables against a chosen alias: a metered call (source `playground`,
 * budgets apply) whose answer, tokens, cost and latency are shown, with its ledger row for those who may read it.
 */
export function Playground(props: {
  version: PromptVersionView;
  models: ModelInfo[];
  defaultModel: string | null;
  ledgerLink: boolean;
}) {
  const { t, locale } = useI18n();
  const id = useId();
  const { version } = props;
  const [values, setValues] = useState<Record<string, string>>({});
  const [model, setModel] = useState(version.config.model ?? props.defaultModel ?? "");
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<PlaygroundResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    setRunning(true);
    setError(null);
    setResult(null);
    try {
      // Variables never typed into are not sent, so the server names any the prompt needs.
      const variables = Object.fromEntries(
        version.variables.filter((v) => v in values).map((v) => [v, values[v]!]),
      );
      const { run } = await promptsApi.run(version.name, {
        version: version.version,
        variables,
        ...(model ? { model } : {}),
      });
      setResult(run);
    } catch (cause) {
      setError(toApiError(cause).message);
    } finally {
      setRunning(false);
    }
  };

  return (
    <div data-testid="playground" className="space-y-4">
      <form noValidate onSubmit={run} className="space-y-3">
        {version.variables.length ? (
          <div className="grid gap-3 sm:grid-cols-2">
            {version.variables.map((v) => (
              <TextAreaField
                key={v}
                id={id}
                name={v}
                testId={`playground-var-${v}`}
                label={`{{${v}}}`}
                labelClassName="font-mono"
                rows={2}
                value={values[v] ?? ""}
                onChange={(value) => setValues((all) => ({ ...all, [v]: value }))}
              />
            ))}
          </div>
        ) : (
          <p className="text-sm text-slate-500">{t("prompts.noVariables")}</p>
        )}
        <div className="flex flex-wrap items-end gap-3">
          <Field controlId={`${id}-model`} field="model" label={t("prompts.playground.model")}>
            {(wiring) => (
              <ModelAliasSelect
                {...wiring}
                data-testid="playground-model"
                models={props.models}
                optionLabel={(m) =>
                  m.offline ? t("prompts.playground.demoModel", { alias: m.alias }) : m.alias
                }
                value={model}
                onChange={setModel}
                className={`mt-1 ${INPUT_FIXED} w-56`}
              />
            )}
          </Field>
          <button type="submit" data-testid="playground-run" disabled={running} className={PRIMARY}>
            {running
              ? t("prompts.playground.running")
              : t("prompts.playground.run", { version: String(version.version) })}
          </button>
        </div>
        <p className="text-xs text-slate-500 dark:text-slate-400">{t("prompts.playground.metered")}</p>
      </form>
      {error && <ErrorNote testId="playground-error" message={error} />}
      {result && (
        <section
          data-testid="playground-result"
          aria-live="polite"
          className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-800"
        >
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
            <Pill tone={result.status === "success" ? "green" : "amber"} testId="playground-status">
              {result.status}
            </Pill>
            <span>
              {t("prompts.playground.tokens")}{" "}
              <span data-testid="playground-tokens" className="tabular-nums">
                {formatTokens(result.usage.inputTokens, locale)} →{" "}
                {formatTokens(result.usage.outputTokens, locale)}
              </span>
            </span>
            <span>
              {t("prompts.playground.cost")}{" "}
              {result.costStatus === "unpriced" ? (
                <span data-testid="playground-cost">{t("cost.unpriced")}</span>
              ) : (
                <Money testId="playground-cost" value={result.cost} />
              )}
            </span>
            <span>
              {t("prompts.playground.latency")}{" "}
              <span data-testid="playground-latency" className="tabular-nums">
                {formatDuration(result.latencyMs)}
              </span>
            </span>
            {result.servedModel && (
              <span className="text-slate-500">
                {t("prompts.playground.served", { model: result.servedModel })}
              </span>
            )}
          </div>
          {result.error && <ErrorNote testId="playground-run-error" message={result.error.message} />}
          <pre
            data-testid="playground-answer"
            className="max-h-96 overflow-auto rounded-md bg-slate-50 p-3 text-sm break-words whitespace-pre-wrap dark:bg-slate-800/50"
          >
            {result.answer || "—"}
          </pre>
          <p className="text-xs text-slate-500">
            {props.ledgerLink ? (
              <Link
                data-testid="playground-ledger-link"
                href={`/dev/agent/turns?f.source=playground&detail=${encodeURIComponent(result.turnId)}`}
                className="text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400"
              >
                {t("prompts.playground.ledger")}
              </Link>
            ) : (
              <span data-testid="playground-turn-id">
                {t("prompts.playground.turnId", { id: result.turnId })}
              </span>
            )}
          </p>
        </section>
      )}
    </div>
  );
}

"use client";

import { useId, useState } from "react";
import { BUTTON, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type Json, toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { mcpApi } from "../client";
import type { McpTestCallResult, McpToolView } from "../contracts";
import { type ArgsProblem, exampleArgs, parseArgs, prettyJson } from "../page-view";

const PROBLEM: Record<ArgsProblem["kind"], MessageKey> = {
  empty: "mcp.test.empty",
  syntax: "mcp.test.syntax",
  notObject: "mcp.test.notObject",
};

/**
 * Runs one tool as the admin, as the loop would (its timeout, the 8,000-character cut, errors as the model would
 * read them): arguments typed as JSON (started from the tool's schema, checked as typed), the result or the error.
 */
export function TestCall({ serverId, tool }: { serverId: string; tool: Json<McpToolView> }) {
  const { t } = useI18n();
  const id = useId();
  const example = () => JSON.stringify(exampleArgs(tool.inputSchema), null, 2);
  const [text, setText] = useState(example);
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<McpTestCallResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const parsed = parseArgs(text);
  const problem = parsed.ok ? null : parsed.error;

  const run = async () => {
    if (!parsed.ok) return;
    setRunning(true);
    setResult(null);
    setFailure(null);
    try {
      setResult(await mcpApi.testCall(serverId, tool.name, parsed.value));
    } catch (error) {
      setFailure(toApiError(error).message);
    } finally {
      setRunning(false);
    }
  };

  return (
    <div
      data-testid="mcp-test-call"
      className="min-w-0 space-y-2 rounded-md bg-slate-50 p-3 dark:bg-slate-950/40"
    >
      <label htmlFor={`${id}-args`} className="block text-xs font-medium text-slate-600 dark:text-slate-400">
        {t("mcp.test.args", { name: tool.name })}
      </label>
      <textarea
        id={`${id}-args`}
        data-testid="mcp-test-args"
        value={text}
        spellCheck={false}
        rows={Math.min(14, Math.max(3, text.split("\n").length + 1))}
        aria-invalid={problem !== null || undefined}
        aria-describedby={`${id}-hint${problem ? ` ${id}-problem` : ""}`}
        onChange={(e) => setText(e.target.value)}
        className="block w-full rounded-md border border-slate-300 bg-white p-2 font-mono text-xs aria-invalid:border-red-500 dark:border-slate-700 dark:bg-slate-900"
      />
      <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
        {t("mcp.test.hint")}
      </p>
      {problem && (
        <p
          id={`${id}-problem`}
          data-testid="mcp-test-invalid"
          className="text-xs text-red-700 dark:text-red-300"
        >
          {t(PROBLEM[problem.kind], { detail: problem.kind === "syntax" ? problem.detail : "" })}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          data-testid="mcp-test-run"
          disabled={running || problem !== null}
          onClick={() => void run()}
          className={PRIMARY}
        >
          {running ? t("mcp.test.running") : t("mcp.test.run")}
        </button>
        <button
          type="button"
          data-testid="mcp-test-reset"
          onClick={() => setText(example())}
          className={BUTTON}
        >
          {t("mcp.test.reset")}
        </button>
      </div>
      <div aria-live="polite">
        {result && (
          <div data-testid="mcp-test-result" data-ok={result.ok} className="space-y-1">
            <p
              className={`text-xs font-medium ${result.ok ? "text-emerald-700 dark:text-emerald-300" : "text-red-700 dark:text-red-300"}`}
            >
              {result.ok
                ? t("mcp.test.ok", { ms: String(result.durationMs) })
                : t("mcp.test.failed", { ms: String(result.durationMs) })}
            </p>
            <pre
              data-testid="mcp-test-output"
              className="max-h-72 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all dark:bg-slate-900"
            >
              {result.ok ? prettyJson(result.content) : result.error}
            </pre>
          </div>
        )}
        {failure && (
          <p role="alert" data-testid="mcp-test-error" className="text-xs text-red-700 dark:text-red-300">
            {t("gov.error", { message: failure })}
          </p>
        )}
      </div>
    </div>
  );
}

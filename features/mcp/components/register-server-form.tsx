"use client";

import { type FormEvent, useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { BUTTON, ErrorNote, FieldError, INPUT, LABEL, messagesOf, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import { TIMEOUT_DEFAULT_MS } from "@/features/mcp/server/client/rules";
import type { Json } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { mcpApi } from "../client";
import type { McpServerDetail } from "../contracts";
import { type HeaderRow, headersOf, secondsToMs } from "../page-view";

const SHOWN = ["name", "url", "transport", "headers", "timeoutMs"] as const;

const HEADER_PROBLEM: Record<"noName" | "noValue" | "duplicate", MessageKey> = {
  noName: "mcp.headers.noName",
  noValue: "mcp.headers.noValue",
  duplicate: "mcp.headers.duplicate",
};

let rowCounter = 0;
const newRow = (): HeaderRow => ({ key: `h${rowCounter++}`, name: "", value: "" });

/**
 * Registers a server: Tollgate connects and lists its tools before it answers, so a URL it cannot use is refused
 * with the reason under the URL. Header values are write-only: sent once, stored encrypted, never shown again.
 */
export function RegisterServerForm({
  onRegistered,
}: {
  onRegistered: (server: Json<McpServerDetail>) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [transport, setTransport] = useState<"auto" | "streamable" | "sse">("auto");
  const [timeout, setTimeoutText] = useState(String(TIMEOUT_DEFAULT_MS / 1000));
  const [rows, setRows] = useState<HeaderRow[]>([]);
  const [rowProblems, setRowProblems] = useState<Map<number, keyof typeof HEADER_PROBLEM>>(new Map());
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));

  const setRow = (key: string, change: Partial<HeaderRow>) =>
    setRows((all) => all.map((r) => (r.key === key ? { ...r, ...change } : r)));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const { headers, problems } = headersOf(rows);
    setRowProblems(problems);
    const timeoutMs = secondsToMs(timeout);
    reset(timeoutMs === null ? { timeoutMs: [t("mcp.register.timeoutInvalid")] } : {});
    if (problems.size || timeoutMs === null) return;
    await submit(async () => {
      const server = await mcpApi.register({
        name: name.trim(),
        url: url.trim(),
        transport,
        timeoutMs,
        ...(Object.keys(headers).length ? { headers } : {}),
      });
      setName("");
      setUrl("");
      // The values leave the page once sent: they are not kept in the form.
      setRows([]);
      onRegistered(server);
    });
  };

  const headerMessages = messagesOf(fields, "headers");
  return (
    <form noValidate onSubmit={onSubmit} data-testid="mcp-register-form" className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          id={id}
          name="name"
          label={t("mcp.register.name")}
          value={name}
          onChange={setName}
          placeholder="github"
          hint={t("mcp.register.nameHint")}
          messages={fields.name}
        />
        <TextField
          id={id}
          name="url"
          label={t("mcp.register.url")}
          value={url}
          onChange={setUrl}
          placeholder="https://mcp.example.com/mcp"
          hint={t("mcp.register.urlHint")}
          messages={fields.url}
        />
        <SelectField
          id={id}
          name="transport"
          label={t("mcp.register.transport")}
          value={transport}
          messages={fields.transport}
          onChange={(value) => setTransport(value as typeof transport)}
        >
          <option value="auto">{t("mcp.transport.auto")}</option>
          <option value="streamable">{t("mcp.transport.streamable")}</option>
          <option value="sse">{t("mcp.transport.sse")}</option>
        </SelectField>
        <TextField
          id={id}
          name="timeoutMs"
          type="number"
          min={1}
          max={300}
          label={t("mcp.register.timeout")}
          value={timeout}
          onChange={setTimeoutText}
          hint={t("mcp.register.timeoutHint")}
          messages={fields.timeoutMs}
        />
      </div>

      <fieldset className="min-w-0 space-y-2" aria-describedby={`${id}-headers-hint`}>
        <legend className={LABEL}>{t("mcp.headers.title")}</legend>
        <p id={`${id}-headers-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {t("mcp.headers.hint")}
        </p>
        {rows.map((row, i) => {
          const problem = rowProblems.get(i);
          const errorId = `${id}-header-${row.key}-error`;
          return (
            <div key={row.key} data-testid="mcp-header-row" className="space-y-1">
              <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
                <label className="sr-only" htmlFor={`${id}-${row.key}-name`}>
                  {t("mcp.headers.nameOf", { n: String(i + 1) })}
                </label>
                <input
                  id={`${id}-${row.key}-name`}
                  data-testid="mcp-header-name"
                  value={row.name}
                  autoComplete="off"
                  placeholder="Authorization"
                  aria-invalid={problem === "noName" || problem === "duplicate" || undefined}
                  aria-describedby={problem ? errorId : undefined}
                  onChange={(e) => setRow(row.key, { name: e.target.value })}
                  className={`${INPUT} sm:w-56`}
                />
                <label className="sr-only" htmlFor={`${id}-${row.key}-value`}>
                  {t("mcp.headers.valueOf", { n: String(i + 1) })}
                </label>
                <input
                  id={`${id}-${row.key}-value`}
                  data-testid="mcp-header-value"
                  type="password"
                  value={row.value}
                  autoComplete="new-password"
                  placeholder={t("mcp.headers.valuePlaceholder")}
                  aria-invalid={problem === "noValue" || undefined}
                  aria-describedby={problem ? errorId : undefined}
                  onChange={(e) => setRow(row.key, { value: e.target.value })}
                  className={`${INPUT} min-w-0 flex-1`}
                />
                <button
                  type="button"
                  data-testid="mcp-header-remove"
                  aria-label={t("mcp.headers.removeOf", { n: String(i + 1) })}
                  onClick={() => {
                    setRows((all) => all.filter((r) => r.key !== row.key));
                    setRowProblems(new Map());
                  }}
                  className={`${BUTTON} self-start sm:self-auto`}
                >
                  {t("mcp.headers.remove")}
                </button>
              </div>
              {problem && (
                <p id={errorId} className="text-xs text-red-700 dark:text-red-300">
                  {t(HEADER_PROBLEM[problem])}
                </p>
              )}
            </div>
          );
        })}
        <button
          type="button"
          data-testid="mcp-header-add"
          onClick={() => setRows((all) => [...all, newRow()])}
          className={BUTTON}
        >
          {t("mcp.headers.add")}
        </button>
        <FieldError id={`${id}-headers-error`} field="headers" messages={headerMessages} />
      </fieldset>

      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" data-testid="mcp-register-submit" disabled={saving} className={PRIMARY}>
          {saving ? t("mcp.register.connecting") : t("mcp.register.submit")}
        </button>
        {saving && (
          <span role="status" className="text-sm text-slate-600 dark:text-slate-300">
            {t("mcp.register.connectingHint")}
          </span>
        )}
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}

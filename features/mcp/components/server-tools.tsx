"use client";

import { useId, useState } from "react";
import { BUTTON, ErrorNote, Pill } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { type Json, toApiError } from "@/lib/client/api";
import { mcpApi } from "../client";
import type { McpRole, McpToolView } from "../contracts";
import { ALL_ROLES, roleAllowed, rolesWith } from "../page-view";
import { TestCall } from "./test-call";

type Tool = Json<McpToolView>;
type Patch = { enabled?: boolean; roles?: McpRole[] | null; requiresConfirmation?: boolean };

/** A server's tools as it last listed them, each with its settings and a test call. */
export function ServerTools({ serverId, serverName }: { serverId: string; serverName: string }) {
  const { t } = useI18n();
  const { data, error, loading } = useLoad((signal) => mcpApi.get(serverId, signal));
  const [tools, setTools] = useState<Tool[] | null>(null);
  const shown = tools ?? data?.tools ?? [];
  if (error) return <ErrorNote message={error.message} />;
  if (loading && !data) return <p className="text-sm text-slate-500">{t("gov.loading")}</p>;
  if (!shown.length)
    return (
      <p data-testid="mcp-tools-none" className="text-sm text-slate-500 dark:text-slate-400">
        {t("mcp.tools.none")}
      </p>
    );
  return (
    <ul data-testid="mcp-tools" aria-label={t("mcp.tools.of", { name: serverName })} className="space-y-3">
      {shown.map((tool) => (
        <ToolRow
          key={tool.name}
          serverId={serverId}
          tool={tool}
          onChange={(saved) =>
            setTools((before) =>
              (before ?? data?.tools ?? []).map((t) => (t.name === saved.name ? saved : t)),
            )
          }
        />
      ))}
    </ul>
  );
}

/** One tool: what it is, its settings (each change saved at once), and its test call. */
function ToolRow(props: { serverId: string; tool: Tool; onChange: (tool: Tool) => void }) {
  const { t } = useI18n();
  const { tool } = props;
  const id = useId();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [testing, setTesting] = useState(false);

  // The box changes at once; the server's answer replaces it (a refusal puts the setting back, with the reason).
  const save = async (patch: Patch) => {
    const before = tool;
    props.onChange({ ...tool, ...patch });
    setSaving(true);
    setSaved(false);
    setFailure(null);
    try {
      const { tool: updated } = await mcpApi.updateTool(props.serverId, tool.name, patch);
      props.onChange(updated);
      setSaved(true);
    } catch (error) {
      props.onChange(before);
      setFailure(toApiError(error).message);
    } finally {
      setSaving(false);
    }
  };

  const roles = tool.roles;
  return (
    <li
      data-testid="mcp-tool"
      data-tool-name={tool.name}
      data-enabled={tool.enabled}
      className="min-w-0 space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700"
    >
      <div className="flex flex-wrap items-center gap-2">
        <code className="font-mono text-sm font-semibold break-all">{tool.name}</code>
        {!tool.enabled && <Pill tone="slate">{t("mcp.tool.off")}</Pill>}
        {tool.requiresConfirmation && <Pill tone="amber">{t("mcp.tool.confirms")}</Pill>}
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {t("mcp.tool.exposedAs")} <code className="font-mono break-all">{tool.exposedName}</code>
      </p>
      {(tool.title || tool.description) && (
        <p className="text-sm break-words text-slate-700 dark:text-slate-200">
          {tool.title && tool.description
            ? `${tool.title}: ${tool.description}`
            : (tool.title ?? tool.description)}
        </p>
      )}
      {"addedLater" in tool && tool.addedLater && (
        <p className="text-xs text-amber-800 dark:text-amber-200">{t("mcp.tool.addedLater")}</p>
      )}

      <fieldset
        disabled={saving}
        aria-describedby={failure ? `${id}-error` : undefined}
        className="flex min-w-0 flex-wrap items-center gap-x-5 gap-y-2 text-sm"
      >
        <legend className="sr-only">{t("mcp.tool.settingsOf", { name: tool.name })}</legend>
        <Check
          testId="mcp-tool-enabled"
          label={t("mcp.tool.enabled")}
          checked={tool.enabled}
          onChange={(enabled) => void save({ enabled })}
        />
        <fieldset className="flex flex-wrap items-center gap-3">
          <legend className="float-left w-full text-xs sm:mr-1 sm:w-auto text-slate-500 dark:text-slate-400">
            {t("mcp.tool.roles")}
          </legend>
          {ALL_ROLES.map((role) => {
            const allowed = roleAllowed(roles, role);
            // The last role cannot be taken away: switching the tool off is how no one calls it.
            const last = allowed && (roles?.length ?? ALL_ROLES.length) === 1;
            return (
              <Check
                key={role}
                testId={`mcp-tool-role-${role}`}
                label={t(`role.${role}`)}
                checked={allowed}
                disabled={last}
                title={last ? t("mcp.tool.lastRole") : undefined}
                onChange={(on) => void save({ roles: rolesWith(roles, role, on) })}
              />
            );
          })}
        </fieldset>
        <Check
          testId="mcp-tool-confirm"
          label={t("mcp.tool.requiresConfirmation")}
          checked={tool.requiresConfirmation}
          onChange={(requiresConfirmation) => void save({ requiresConfirmation })}
        />
        <span
          role="status"
          data-testid="mcp-tool-saved"
          className="text-xs text-emerald-700 dark:text-emerald-300"
        >
          {saving ? t("mcp.tool.saving") : saved ? `✓ ${t("gov.saved")}` : ""}
        </span>
      </fieldset>
      {failure && (
        <p id={`${id}-error`} role="alert" className="text-xs text-red-700 dark:text-red-300">
          {failure}
        </p>
      )}

      <button
        type="button"
        data-testid="mcp-tool-test-toggle"
        aria-expanded={testing}
        onClick={() => setTesting((open) => !open)}
        className={BUTTON}
      >
        {testing ? t("mcp.test.close") : t("mcp.test.open")}
      </button>
      {testing && <TestCall serverId={props.serverId} tool={tool} />}
    </li>
  );
}

function Check(props: {
  testId: string;
  label: string;
  checked: boolean;
  disabled?: boolean;
  title?: string;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className="inline-flex items-center gap-1.5" title={props.title}>
      <input
        type="checkbox"
        data-testid={props.testId}
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.checked)}
        className="h-4 w-4 accent-indigo-600"
      />
      {props.label}
    </label>
  );
}

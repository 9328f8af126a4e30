"use client";

import { Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import type { PromptConfigView, PromptVersionView } from "@/features/prompts/contracts";

// The same placeholder syntax as features/prompts/server/template.ts, captured so split() keeps the placeholders.
const PLACEHOLDER_SPLIT = /(\{\{\s*[A-Za-z_][\w.-]*\s*\}\})/g;

/** Text with its `{{variables}}` highlighted. */
export function TemplateText({ text }: { text: string }) {
  const parts = text.split(PLACEHOLDER_SPLIT);
  return (
    <pre className="font-mono text-xs leading-relaxed break-words whitespace-pre-wrap">
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <mark
            // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed string, in order
            key={i}
            data-testid="prompt-variable"
            className="rounded bg-amber-100 px-0.5 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100"
          >
            {part}
          </mark>
        ) : (
          part
        ),
      )}
    </pre>
  );
}

const ROLE_TONE = {
  system: "border-violet-300 dark:border-violet-800",
  user: "border-sky-300 dark:border-sky-800",
  assistant: "border-emerald-300 dark:border-emerald-800",
} as const;

/** A version's messages by role (chat) or its text, with the variables it uses. */
export function PromptContent({ version }: { version: PromptVersionView }) {
  const { t } = useI18n();
  return (
    <div data-testid="prompt-content" className="space-y-3">
      {version.type === "chat" ? (
        (version.messages ?? []).map((m, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: a version's messages never change
            key={i}
            data-testid="prompt-message"
            data-role={m.role}
            className={`rounded-md border-l-4 bg-slate-50 px-3 py-2 dark:bg-slate-800/50 ${ROLE_TONE[m.role]}`}
          >
            <p className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
              {t(`prompts.role.${m.role}`)}
            </p>
            <TemplateText text={m.content} />
          </div>
        ))
      ) : (
        <div className="rounded-md bg-slate-50 px-3 py-2 dark:bg-slate-800/50">
          <TemplateText text={version.text ?? ""} />
        </div>
      )}
      <VariableList variables={version.variables} />
      <ConfigView config={version.config} />
    </div>
  );
}

export function VariableList({ variables }: { variables: string[] }) {
  const { t } = useI18n();
  return (
    <p data-testid="prompt-variables" className="flex flex-wrap items-center gap-1.5 text-sm">
      <span className="text-slate-600 dark:text-slate-300">{t("prompts.variables")}</span>
      {variables.length ? (
        variables.map((v) => (
          <Pill key={v} tone="amber">
            {`{{${v}}}`}
          </Pill>
        ))
      ) : (
        <span className="text-slate-500">{t("prompts.noVariables")}</span>
      )}
    </p>
  );
}

function ConfigView({ config }: { config: PromptConfigView }) {
  const { t } = useI18n();
  const rows: [string, string][] = [
    [t("prompts.config.model"), config.model ?? t("prompts.config.default")],
    [t("prompts.config.temperature"), config.temperature?.toString() ?? t("prompts.config.default")],
    [t("prompts.config.maxTokens"), config.maxTokens?.toString() ?? t("prompts.config.default")],
    [t("prompts.config.toolSets"), config.toolSets?.length ? config.toolSets.join(", ") : "—"],
  ];
  return (
    <dl
      data-testid="prompt-config"
      className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md border border-slate-200 px-3 py-2 text-sm dark:border-slate-800"
    >
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-500">{label}</dt>
          <dd className="font-mono text-xs leading-5 break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A version as lines, for the diff: each message under its role, then the config. */
export function versionLines(version: PromptVersionView): string[] {
  const lines: string[] = [];
  if (version.type === "chat")
    for (const m of version.messages ?? []) lines.push(`[${m.role}]`, ...m.content.split("\n"), "");
  else lines.push(...(version.text ?? "").split("\n"), "");
  lines.push("[config]");
  const c = version.config;
  if (c.model !== undefined) lines.push(`model: ${c.model}`);
  if (c.temperature !== undefined) lines.push(`temperature: ${c.temperature}`);
  if (c.maxTokens !== undefined) lines.push(`maxTokens: ${c.maxTokens}`);
  if (c.toolSets?.length) lines.push(`toolSets: ${c.toolSets.join(", ")}`);
  return lines;
}

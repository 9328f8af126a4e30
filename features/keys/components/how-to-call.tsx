"use client";

import { Section } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";

const CODE =
  "overflow-x-auto rounded-md bg-slate-100 p-3 font-mono text-xs leading-relaxed whitespace-pre dark:bg-slate-800";

/** How an app calls Tollgate with a key: any OpenAI client pointed at this server's /v1. */
export function HowToCall({ origin, model }: { origin: string; model: string }) {
  const { t } = useI18n();
  const env = `OPENAI_BASE_URL=${origin}/v1\nOPENAI_API_KEY=tg_…`;
  const curl = [
    `curl ${origin}/v1/chat/completions \\`,
    `  -H "Authorization: Bearer $OPENAI_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify({ model, messages: [{ role: "user", content: "Hello" }] })}'`,
  ].join("\n");
  return (
    <Section title={t("gov.keys.howTitle")} lead={t("gov.keys.howLead")} testId="how-to-call">
      <pre data-testid="how-to-call-env" className={CODE}>
        {env}
      </pre>
      <pre data-testid="how-to-call-curl" className={CODE}>
        {curl}
      </pre>
    </Section>
  );
}

/** How an outside agent uses the tenant's tools: an MCP client pointed at /mcp with a key as its Bearer token. */
export function HowToUseMcp({ origin }: { origin: string }) {
  const { t } = useI18n();
  const config = JSON.stringify(
    {
      mcpServers: {
        tollgate: { type: "http", url: `${origin}/mcp`, headers: { Authorization: "Bearer tg_…" } },
      },
    },
    null,
    2,
  );
  return (
    <Section title={t("mcpKeys.howTitle")} lead={t("mcpKeys.howLead")} testId="how-to-use-mcp">
      <pre data-testid="how-to-use-mcp-config" className={CODE}>
        {config}
      </pre>
    </Section>
  );
}

"use client";

import { useState } from "react";
import { BUTTON, ErrorNote, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { mcpApi } from "../client";
import { RegisterServerForm } from "./register-server-form";
import { ServerCard } from "./server-card";

/**
 * The tenant's MCP servers: register one (Tollgate connects and lists its tools first), the servers with what
 * their last check found, and each server's tools with their settings and a test call.
 */
export function McpAdmin() {
  const { t } = useI18n();
  const { data, error, loading, reload } = useLoad((signal) => mcpApi.list(signal));
  const [open, setOpen] = useState<string | null>(null);
  const servers = data?.servers ?? [];
  return (
    <div className="min-w-0 space-y-6">
      <Section title={t("mcp.register.title")} lead={t("mcp.register.lead")} testId="mcp-register">
        <RegisterServerForm
          onRegistered={(server) => {
            setOpen(server.id);
            reload();
          }}
        />
      </Section>

      <section aria-labelledby="mcp-servers-title" className="min-w-0 space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="mcp-servers-title" className="font-semibold">
            {t("mcp.servers.title")}
          </h2>
          <button type="button" data-testid="mcp-servers-reload" onClick={reload} className={BUTTON}>
            {t("mcp.servers.reload")}
          </button>
        </div>
        <p className="text-sm text-slate-600 dark:text-slate-300">{t("mcp.servers.lead")}</p>
        {error && <ErrorNote message={error.message} />}
        <ul data-testid="mcp-servers" aria-busy={loading} className="space-y-3">
          {servers.map((server) => (
            <ServerCard
              key={server.id}
              server={server}
              open={open === server.id}
              onToggle={() => setOpen((id) => (id === server.id ? null : server.id))}
              onChanged={reload}
            />
          ))}
        </ul>
        {!servers.length && (
          <p data-testid="mcp-servers-none" className="text-sm text-slate-500 dark:text-slate-400">
            {loading ? t("gov.loading") : t("mcp.servers.none")}
          </p>
        )}
      </section>
    </div>
  );
}

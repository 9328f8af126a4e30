"use client";

import { useState } from "react";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { BUTTON, CARD, DateText, ErrorNote, Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type Json, toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { mcpApi } from "../client";
import type { McpServerView } from "../contracts";
import { healthOf, type ServerHealth } from "../page-view";
import { ServerTools } from "./server-tools";

const HEALTH: Record<ServerHealth, { tone: "green" | "amber" | "slate"; label: MessageKey }> = {
  reachable: { tone: "green", label: "mcp.status.reachable" },
  unreachable: { tone: "amber", label: "mcp.status.unreachable" },
  unchecked: { tone: "slate", label: "mcp.status.unchecked" },
};

/**
 * One registered server: its address, what its last check found (reachable, tools, latency, when, the error),
 * Refresh (list its tools again now), Delete (after a second press), and its tools with their settings.
 */
export function ServerCard(props: {
  server: Json<McpServerView>;
  open: boolean;
  onToggle: () => void;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const { server } = props;
  const [busy, setBusy] = useState<"refresh" | "delete" | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  // Bumped after a refresh, so the open tool list loads again.
  const [toolsVersion, setToolsVersion] = useState(0);
  const health = healthOf(server.status);
  const toolsId = `mcp-tools-${server.id}`;

  const act = async (kind: "refresh" | "delete") => {
    setBusy(kind);
    setActionError(null);
    try {
      if (kind === "refresh") {
        await mcpApi.refresh(server.id);
        setToolsVersion((v) => v + 1);
      } else await mcpApi.remove(server.id);
    } catch (error) {
      setActionError(toApiError(error).message);
    } finally {
      setBusy(null);
      setConfirming(false);
      // A failed refresh changed the status too (its error, when it was checked).
      props.onChanged();
    }
  };

  return (
    <li
      data-testid="mcp-server"
      data-server-name={server.name}
      data-health={health}
      className={`${CARD} min-w-0 space-y-3 p-4`}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <h3 className="flex flex-wrap items-center gap-2 font-semibold">
            <span className="break-all">{server.name}</span>
            <Pill tone={HEALTH[health].tone} testId="mcp-server-health">
              {t(HEALTH[health].label)}
            </Pill>
          </h3>
          <p className="font-mono text-xs break-all text-slate-600 dark:text-slate-300">{server.url}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <InlineConfirm
            asking={confirming}
            onAsk={() => setConfirming(true)}
            onCancel={() => setConfirming(false)}
            onConfirm={() => void act("delete")}
            busy={busy !== null}
            action={{
              label: t("mcp.server.delete"),
              ariaLabel: t("mcp.server.deleteOf", { name: server.name }),
              testId: "mcp-server-delete",
            }}
            confirm={{
              label: t("mcp.server.deleteConfirm"),
              ariaLabel: t("mcp.server.deleteConfirmOf", { name: server.name }),
              testId: "mcp-server-delete-confirm",
            }}
            cancelTestId="mcp-server-delete-cancel"
          >
            <button
              type="button"
              data-testid="mcp-server-refresh"
              aria-label={t("mcp.server.refreshOf", { name: server.name })}
              disabled={busy !== null}
              onClick={() => void act("refresh")}
              className={BUTTON}
            >
              {busy === "refresh" ? t("mcp.server.refreshing") : t("mcp.server.refresh")}
            </button>
          </InlineConfirm>
        </div>
      </div>
      {confirming && (
        <p className="text-sm text-red-700 dark:text-red-300">
          {t("mcp.server.deleteWarning", { name: server.name })}
        </p>
      )}

      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <Fact label={t("mcp.server.tools")} testId="mcp-server-tool-count">
          {server.status.toolCount}
        </Fact>
        <Fact label={t("mcp.server.latency")} testId="mcp-server-latency">
          {server.status.latencyMs === null ? "—" : t("mcp.ms", { ms: String(server.status.latencyMs) })}
        </Fact>
        <Fact label={t("mcp.server.checked")}>
          <DateText value={server.status.checkedAt} fallback={t("mcp.server.never")} />
        </Fact>
        <Fact label={t("mcp.server.transport")}>
          {server.status.connectedTransport
            ? t(`mcp.transport.${server.status.connectedTransport}`)
            : t(`mcp.transport.${server.transport}`)}
        </Fact>
        <Fact label={t("mcp.server.timeout")}>
          {t("mcp.seconds", { s: String(server.timeoutMs / 1000) })}
        </Fact>
        <Fact label={t("mcp.server.headers")} wide>
          {server.headerNames.length ? (
            <span className="font-mono text-xs break-all">{server.headerNames.join(", ")}</span>
          ) : (
            <span className="text-slate-500 dark:text-slate-400">{t("mcp.server.noHeaders")}</span>
          )}
        </Fact>
      </dl>

      {server.status.lastError && (
        <p
          data-testid="mcp-server-error"
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm break-words text-amber-900 dark:border-amber-800 dark:bg-amber-950/30 dark:text-amber-100"
        >
          <span className="font-medium">{t("mcp.server.lastError")}</span> {server.status.lastError}
        </p>
      )}
      {actionError && <ErrorNote message={actionError} testId="mcp-server-action-error" />}

      <button
        type="button"
        data-testid="mcp-server-tools-toggle"
        aria-expanded={props.open}
        aria-controls={toolsId}
        onClick={props.onToggle}
        className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
      >
        {props.open
          ? t("mcp.server.hideTools")
          : t("mcp.server.showTools", { n: String(server.status.toolCount) })}
      </button>
      {props.open && (
        <div id={toolsId}>
          <ServerTools key={toolsVersion} serverId={server.id} serverName={server.name} />
        </div>
      )}
    </li>
  );
}

function Fact(props: { label: string; children: React.ReactNode; testId?: string; wide?: boolean }) {
  return (
    <div className={`min-w-0 ${props.wide ? "col-span-2 sm:col-span-3" : ""}`}>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{props.label}</dt>
      <dd data-testid={props.testId} className="tabular-nums">
        {props.children}
      </dd>
    </div>
  );
}

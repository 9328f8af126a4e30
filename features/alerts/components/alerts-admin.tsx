"use client";

import { useMemo, useState } from "react";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { BUTTON, CARD, DateText, ErrorNote, Pill, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { alertsApi } from "../client";
import type { AlertChannelView, AlertRuleView, SendTestResult } from "../contracts";
import { emptyRuleDraft, paramsOf, paramsSummary, ruleDraftOf } from "../page-view";
import { ChannelForm, channelBody } from "./channel-form";
import { RuleForm } from "./rule-form";

const STATUS_TONE = { delivered: "green", pending: "indigo", dead: "amber" } as const;

/**
 * A tenant's (or, `platform`, the super admin's) alerts: the rules with when each last fired, the channels with a
 * Send test, and the recent deliveries.
 */
export function AlertsAdmin({ platform = false }: { platform?: boolean }) {
  const { t } = useI18n();
  const api = useMemo(() => alertsApi(platform), [platform]);
  const rules = useLoad((signal) => api.rules(signal));
  const channels = useLoad((signal) => api.channels(signal));
  const deliveries = useLoad((signal) => api.deliveries(signal));
  const [editingRule, setEditingRule] = useState<AlertRuleView | "new" | null>(null);
  const [editingChannel, setEditingChannel] = useState<AlertChannelView | "new" | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, SendTestResult | { failed: string }>>({});
  const [actionError, setActionError] = useState<string | null>(null);
  const channelList = channels.data?.channels ?? [];
  const names = new Map(channelList.map((c) => [c.id, c.name]));

  const act = async (run: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await run();
    } catch (error) {
      setActionError(toApiError(error).message);
    }
  };
  const ruleForm = (rule: AlertRuleView | null) => (
    <RuleForm
      key={rule?.id ?? "new"}
      initial={rule ? ruleDraftOf(rule) : emptyRuleDraft(platform ? "breaker_open" : "budget_threshold")}
      editing={rule}
      platform={platform}
      channels={channelList}
      onCancel={() => setEditingRule(null)}
      save={async (d) => {
        const body = { name: d.name, params: paramsOf(d), channelIds: d.channelIds, enabled: d.enabled };
        if (rule) await api.updateRule(rule.id, body);
        else await api.createRule({ ...body, kind: d.kind });
        setEditingRule(null);
        rules.reload();
      }}
    />
  );
  const channelForm = (channel: AlertChannelView | null) => (
    <ChannelForm
      key={channel?.id ?? "new"}
      editing={channel}
      onCancel={() => setEditingChannel(null)}
      save={async (d) => {
        if (channel) await api.updateChannel(channel.id, channelBody(d, true));
        else {
          const { name, config } = channelBody(d, false);
          await api.createChannel({ kind: d.kind, name, config } as Parameters<typeof api.createChannel>[0]);
        }
        setEditingChannel(null);
        channels.reload();
      }}
    />
  );
  const sendTest = (id: string) =>
    api
      .sendTest(id)
      .then(
        (result) => setTests((prev) => ({ ...prev, [id]: result })),
        (error: unknown) => setTests((prev) => ({ ...prev, [id]: { failed: toApiError(error).message } })),
      )
      .finally(() => deliveries.reload());

  return (
    <div className="min-w-0 space-y-6">
      {actionError && <ErrorNote message={actionError} />}
      <Section title={t("al.rules.title")} lead={t("al.rules.lead")} testId="al-rules">
        {rules.error && <ErrorNote message={rules.error.message} />}
        {rules.data && !rules.data.rules.length && editingRule !== "new" && (
          <p data-testid="al-rules-empty" className="text-sm text-slate-500">
            {t("al.rules.empty")}
          </p>
        )}
        <ul data-testid="al-rule-list" className="min-w-0 space-y-2">
          {rules.data?.rules.map((rule) =>
            editingRule !== "new" && editingRule?.id === rule.id ? (
              <li key={rule.id}>{ruleForm(rule)}</li>
            ) : (
              <li
                key={rule.id}
                data-testid="al-rule"
                data-rule-id={rule.id}
                className={`${CARD} min-w-0 space-y-1 p-3 ${rule.enabled ? "" : "opacity-70"}`}
              >
                <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
                  <span data-testid="al-rule-name" className="min-w-0 font-medium break-words">
                    {rule.name}
                  </span>
                  <Pill tone="slate">{t(`al.kind.${rule.kind}`)}</Pill>
                  {!rule.enabled && <Pill tone="amber">{t("al.off")}</Pill>}
                </div>
                <p
                  data-testid="al-rule-params"
                  className="text-sm break-words text-slate-600 dark:text-slate-300"
                >
                  {paramsSummary(t, rule)}
                </p>
                <p className="text-xs break-words text-slate-500">
                  {t("al.col.channels")}:{" "}
                  {rule.channelIds.length
                    ? rule.channelIds.map((id) => names.get(id) ?? id).join(", ")
                    : t("al.none")}
                  {" · "}
                  {t("al.col.lastFired")}: <DateText value={rule.lastFiredAt} fallback={t("al.never")} />
                </p>
                <div className="flex flex-wrap gap-2 pt-1">
                  <button
                    type="button"
                    data-testid="al-rule-edit"
                    className={BUTTON}
                    onClick={() => setEditingRule(rule)}
                  >
                    {t("al.edit")}
                  </button>
                  <InlineConfirm
                    asking={asking === rule.id}
                    onAsk={() => setAsking(rule.id)}
                    onCancel={() => setAsking(null)}
                    onConfirm={() =>
                      void act(async () => {
                        await api.deleteRule(rule.id);
                        setAsking(null);
                        rules.reload();
                      })
                    }
                    action={{
                      label: t("al.delete"),
                      testId: "al-rule-delete",
                      ariaLabel: t("al.deleteOf", { name: rule.name }),
                    }}
                    confirm={{ label: t("al.deleteConfirm"), testId: "al-rule-delete-confirm" }}
                    cancelTestId="al-rule-delete-cancel"
                  />
                </div>
              </li>
            ),
          )}
        </ul>
        {editingRule === "new" ? (
          ruleForm(null)
        ) : (
          <button
            type="button"
            data-testid="al-rule-add"
            disabled={!rules.data || !channels.data}
            className={BUTTON}
            onClick={() => setEditingRule("new")}
          >
            {t("al.rule.add")}
          </button>
        )}
      </Section>

      <Section title={t("al.channels.title")} lead={t("al.channels.lead")} testId="al-channels">
        {channels.error && <ErrorNote message={channels.error.message} />}
        {channels.data && !channelList.length && editingChannel !== "new" && (
          <p data-testid="al-channels-empty" className="text-sm text-slate-500">
            {t("al.channels.empty")}
          </p>
        )}
        <ul data-testid="al-channel-list" className="min-w-0 space-y-2">
          {channelList.map((c) => {
            if (editingChannel !== "new" && editingChannel?.id === c.id)
              return <li key={c.id}>{channelForm(c)}</li>;
            const test = tests[c.id];
            return (
              <li
                key={c.id}
                data-testid="al-channel"
                data-channel-id={c.id}
                className={`${CARD} min-w-0 space-y-1 p-3`}
              >
                <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
                  <span data-testid="al-channel-name" className="min-w-0 font-medium break-words">
                    {c.name}
                  </span>
                  <Pill tone="slate">{t(`al.ch.${c.kind}`)}</Pill>
                  {!c.enabled && <Pill tone="amber">{t("al.off")}</Pill>}
                  {c.secretSet && <span className="text-xs text-slate-500">{t("al.ch.secretSet")}</span>}
                </div>
                <p
                  data-testid="al-channel-target"
                  className="font-mono text-xs break-all text-slate-600 dark:text-slate-300"
                >
                  {c.target}
                </p>
                <div className="flex flex-wrap items-center gap-2 pt-1">
                  <button
                    type="button"
                    data-testid="al-channel-test"
                    className={BUTTON}
                    disabled={!c.enabled}
                    onClick={() => void sendTest(c.id)}
                  >
                    {t("al.ch.sendTest")}
                  </button>
                  <button
                    type="button"
                    data-testid="al-channel-edit"
                    className={BUTTON}
                    onClick={() => setEditingChannel(c)}
                  >
                    {t("al.edit")}
                  </button>
                  <InlineConfirm
                    asking={asking === c.id}
                    onAsk={() => setAsking(c.id)}
                    onCancel={() => setAsking(null)}
                    onConfirm={() =>
                      void act(async () => {
                        await api.deleteChannel(c.id);
                        setAsking(null);
                        channels.reload();
                        rules.reload();
                      })
                    }
                    action={{
                      label: t("al.delete"),
                      testId: "al-channel-delete",
                      ariaLabel: t("al.deleteOf", { name: c.name }),
                    }}
                    confirm={{ label: t("al.deleteConfirm"), testId: "al-channel-delete-confirm" }}
                    cancelTestId="al-channel-delete-cancel"
                  />
                  {test && (
                    <span
                      data-testid="al-channel-test-result"
                      data-status={"failed" in test ? "failed" : test.status}
                      className="text-sm"
                    >
                      {"failed" in test
                        ? t("al.ch.testFailed", { error: test.failed })
                        : t(`al.status.${test.status}`) + (test.error ? `: ${test.error}` : "")}
                    </span>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
        {editingChannel === "new" ? (
          channelForm(null)
        ) : (
          <button
            type="button"
            data-testid="al-channel-add"
            disabled={!channels.data}
            className={BUTTON}
            onClick={() => setEditingChannel("new")}
          >
            {t("al.ch.add")}
          </button>
        )}
      </Section>

      <Section title={t("al.log.title")} lead={t("al.log.lead")} testId="al-deliveries">
        {deliveries.error && <ErrorNote message={deliveries.error.message} />}
        <div className="flex justify-end">
          <button type="button" data-testid="al-log-reload" className={BUTTON} onClick={deliveries.reload}>
            {t("al.log.reload")}
          </button>
        </div>
        {deliveries.data && !deliveries.data.deliveries.length && (
          <p data-testid="al-log-empty" className="text-sm text-slate-500">
            {t("al.log.empty")}
          </p>
        )}
        <ul className="min-w-0 divide-y divide-slate-200 dark:divide-slate-800">
          {deliveries.data?.deliveries.map((d) => (
            <li
              key={d.id}
              data-testid="al-delivery"
              data-status={d.status}
              className="min-w-0 space-y-1 py-2"
            >
              <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
                <Pill
                  tone={STATUS_TONE[d.status as keyof typeof STATUS_TONE] ?? "slate"}
                  testId="al-delivery-status"
                >
                  {t(`al.status.${d.status as "pending"}`)}
                </Pill>
                <span className="min-w-0 text-sm font-medium break-words">{d.eventTitle}</span>
              </div>
              <p className="text-xs break-words text-slate-500">
                {d.channelName} ({t(`al.ch.${d.channelKind as "webhook"}`)}) ·{" "}
                <DateText value={d.createdAt} fallback="" /> ·{" "}
                {t("al.log.attempts", { n: String(d.attempts) })}
                {d.lastStatus !== null && ` · HTTP ${d.lastStatus}`}
              </p>
              {d.lastError && (
                <p
                  data-testid="al-delivery-error"
                  className="text-xs break-words text-red-700 dark:text-red-300"
                >
                  {d.lastError}
                </p>
              )}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

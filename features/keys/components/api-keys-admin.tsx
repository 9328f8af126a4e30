"use client";

import Link from "next/link";
import { Fragment, useState } from "react";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { SecretPanel } from "@/components/admin-kit/secret-panel";
import { BUTTON_SM, CARD, DateText, ErrorNote, Pill, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { LimitsForm, limitsApi, limitsSummary } from "@/features/limits/components";
import type { LimitValues, LimitView } from "@/features/limits/contracts";
import { type Json, toApiError } from "@/lib/client/api";
import { allowedToolsSummary } from "../allowed-tools";
import { keysApi } from "../client";
import type { KeyListItem } from "../contracts";
import { type ExpiryState, expiryState } from "../expiry";
import { AllowedToolsForm } from "./allowed-tools-form";
import { CreateKeyForm } from "./create-key-form";
import { HowToCall, HowToUseMcp } from "./how-to-call";
import { KeyLifecycleForm } from "./key-lifecycle-form";

type KeyRow = Json<KeyListItem> & { limits: LimitView | null; endUserLimits: LimitValues | null };

/** The keys, each with its limits (which only the settings route carries), and the gateway's aliases. */
async function loadKeys(signal: AbortSignal): Promise<{ keys: KeyRow[]; aliases: string[] }> {
  const [{ keys }, settings] = await Promise.all([keysApi.list(signal), limitsApi.settings(signal)]);
  const byId = new Map(settings.keys.map((k) => [k.id, k]));
  return {
    keys: keys.map((k) => ({
      ...k,
      limits: byId.get(k.id)?.limits ?? null,
      endUserLimits: byId.get(k.id)?.endUserLimits ?? null,
    })),
    aliases: settings.aliases,
  };
}

// Eleven columns in the page's width: narrow padding, the long headers and dates wrap rather than overflow, and
// a row's actions sit behind one small toggle (they open in a line under the row), so rows stay one line high.
const TH = "px-2 py-2 text-left font-medium whitespace-nowrap";
const TH_WRAP = "px-2 py-2 text-left font-medium";
const TD = "px-2 py-2 align-middle";
const COLUMNS = 11;

/** A key's expiry in words: never, expired, within a day, in N days. */
function ExpiryText({ expiry }: { expiry: ExpiryState }) {
  const { t } = useI18n();
  const text =
    expiry.state === "never"
      ? t("keyLife.never")
      : expiry.state === "expired"
        ? t("keyLife.expired")
        : expiry.days <= 1
          ? t("keyLife.inOneDay")
          : t("keyLife.inDays", { count: String(expiry.days) });
  return (
    <span data-testid="key-expiry" data-state={expiry.state}>
      {text}
    </span>
  );
}

/**
 * The keys screen: create (the secret shown once), list, revoke, per-key limits, expiry and rotation (the
 * successor's secret shown once), and how to call the API.
 */
export function ApiKeysAdmin({ origin }: { origin: string }) {
  const { t } = useI18n();
  const { data, error, loading, reload } = useLoad(loadKeys);
  // A new key's secret, shown once: at the top for a created key, under the old key's row for a rotated one.
  const [created, setCreated] = useState<{ secret: string; name: string; after?: string } | null>(null);
  const [limitsOpen, setLimitsOpen] = useState<string | null>(null);
  const [toolsOpen, setToolsOpen] = useState<string | null>(null);
  const [lifeOpen, setLifeOpen] = useState<string | null>(null);
  const [actionsOpen, setActionsOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const revoke = async (key: KeyRow) => {
    setRevoking(key.id);
    setActionError(null);
    try {
      await keysApi.revoke(key.id);
      setConfirming(null);
      if (limitsOpen === key.id) setLimitsOpen(null);
      if (toolsOpen === key.id) setToolsOpen(null);
      if (lifeOpen === key.id) setLifeOpen(null);
      if (actionsOpen === key.id) setActionsOpen(null);
      reload();
    } catch (e) {
      setActionError(toApiError(e).message);
    } finally {
      setRevoking(null);
    }
  };

  const keys = data?.keys ?? [];
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const now = Date.now();
  const toolWords = {
    all: t("mcpKeys.all"),
    none: t("mcpKeys.noneAllowed"),
    count: (count: number) => t("mcpKeys.count", { count: String(count) }),
  };
  const model = data?.aliases[0] ?? "default";
  return (
    <div className="min-w-0 space-y-6">
      <Section title={t("gov.keys.createTitle")} lead={t("gov.keys.createLead")} testId="create-key">
        <CreateKeyForm
          onCreated={({ secret, key }) => {
            setCreated({ secret, name: key.name });
            reload();
          }}
        />
      </Section>
      {created && !created.after && (
        <SecretPanel name={created.name} secret={created.secret} onDone={() => setCreated(null)} />
      )}

      <section aria-labelledby="keys-title" className="min-w-0 space-y-3">
        <h2 id="keys-title" className="font-semibold">
          {t("gov.keys.listTitle")}
        </h2>
        {error && <ErrorNote message={error.message} />}
        {actionError && <ErrorNote message={actionError} />}
        {/* relative: the actions header's sr-only label is positioned inside the scroll box, not past the page */}
        <div className={`${CARD} relative overflow-x-auto`}>
          <table aria-busy={loading} data-testid="keys-table" className="min-w-full text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
              <tr>
                <th scope="col" className={TH}>
                  {t("gov.keys.name")}
                </th>
                <th scope="col" className={`${TH} hidden sm:table-cell`}>
                  {t("gov.keys.prefix")}
                </th>
                <th scope="col" className={`${TH} hidden md:table-cell`}>
                  {t("gov.keys.created")}
                </th>
                <th scope="col" className={`${TH} hidden md:table-cell`}>
                  {t("gov.keys.lastUsed")}
                </th>
                <th scope="col" className={`${TH} hidden md:table-cell`}>
                  {t("keyLife.expires")}
                </th>
                <th
                  scope="col"
                  className={`${TH_WRAP} hidden text-right sm:table-cell`}
                  title={t("gov.keys.spendNote")}
                >
                  {t("gov.keys.spentToday")}
                </th>
                <th
                  scope="col"
                  className={`${TH_WRAP} hidden text-right sm:table-cell`}
                  title={t("gov.keys.spendNote")}
                >
                  {t("gov.keys.spentThisMonth")}
                </th>
                <th scope="col" className={`${TH} hidden lg:table-cell`}>
                  {t("gov.keys.limits")}
                </th>
                <th scope="col" className={`${TH} hidden lg:table-cell`}>
                  {t("mcpKeys.column")}
                </th>
                <th scope="col" className={`${TH} hidden sm:table-cell`}>
                  {t("gov.keys.status")}
                </th>
                <th scope="col" className={`${TH} text-right`}>
                  <span className="sr-only">{t("gov.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {keys.map((key) => {
                const revoked = key.revokedAt !== null;
                const expiry = expiryState(key.expiresAt, now);
                const expired = expiry.state === "expired";
                const state = revoked ? "revoked" : expired ? "expired" : "active";
                const status = revoked ? (
                  <Pill tone="slate">{t("gov.keys.revoked")}</Pill>
                ) : expired ? (
                  <Pill tone="amber">{t("keyLife.expired")}</Pill>
                ) : (
                  <Pill tone="green">{t("gov.keys.active")}</Pill>
                );
                const rotatedTo = key.rotatedTo && (names.get(key.rotatedTo) ?? key.rotatedTo);
                const rotatedFrom = key.rotatedFrom && (names.get(key.rotatedFrom) ?? key.rotatedFrom);
                return (
                  <Fragment key={key.id}>
                    <tr data-testid="key-row" data-key-id={key.id} data-key-name={key.name}>
                      <td className={`${TD} max-w-[10rem] sm:max-w-[12rem]`}>
                        <Link
                          href={`/dev/agent/turns?f.apiKeyId=${encodeURIComponent(key.id)}`}
                          data-testid="key-ledger-link"
                          className="block truncate font-medium underline-offset-2 hover:underline"
                          title={t("gov.keys.ledgerOf", { name: key.name })}
                        >
                          {key.name}
                        </Link>
                        {rotatedTo && (
                          <span
                            data-testid="key-rotated-to"
                            className="mt-0.5 block truncate text-xs text-slate-500 dark:text-slate-400"
                          >
                            {t("keyLife.rotatedTo", { name: rotatedTo })}
                          </span>
                        )}
                        {rotatedFrom && (
                          <span
                            data-testid="key-rotated-from"
                            className="mt-0.5 block truncate text-xs text-slate-500 dark:text-slate-400"
                          >
                            {t("keyLife.rotatedFrom", { name: rotatedFrom })}
                          </span>
                        )}
                        {/* Narrow screens: the prefix, expiry, spend and status columns fold in here. */}
                        <span className="mt-0.5 flex flex-wrap items-center gap-2 sm:hidden">
                          <span className="font-mono text-xs text-slate-500">{key.prefix}…</span>
                          {status}
                        </span>
                        <span className="mt-0.5 block text-xs text-slate-500 md:hidden dark:text-slate-400">
                          {t("gov.keys.lastUsed")}{" "}
                          <DateText value={key.lastUsedAt} fallback={t("gov.keys.never")} />
                          {!revoked && expiry.state === "expires" && (
                            <>
                              {" · "}
                              {t("keyLife.expires")} <ExpiryText expiry={expiry} />
                            </>
                          )}
                        </span>
                        <span className="mt-0.5 block text-xs text-slate-500 sm:hidden dark:text-slate-400">
                          {t("gov.keys.spentToday")} <Money value={key.spentToday} /> ·{" "}
                          {t("gov.keys.spentThisMonth")} <Money value={key.spentThisMonth} />
                        </span>
                      </td>
                      <td className={`${TD} hidden font-mono text-xs whitespace-nowrap sm:table-cell`}>
                        <span data-testid="key-prefix">{key.prefix}…</span>
                      </td>
                      <td className={`${TD} hidden min-w-24 md:table-cell`}>
                        <DateText value={key.createdAt} fallback="—" />
                      </td>
                      <td className={`${TD} hidden min-w-24 md:table-cell`}>
                        <DateText value={key.lastUsedAt} fallback={t("gov.keys.never")} />
                      </td>
                      <td
                        className={`${TD} hidden whitespace-nowrap md:table-cell`}
                        title={key.expiresAt ?? undefined}
                      >
                        <ExpiryText expiry={expiry} />
                      </td>
                      <td className={`${TD} hidden text-right sm:table-cell`}>
                        <Money testId="key-spent-today" value={key.spentToday} />
                      </td>
                      <td className={`${TD} hidden text-right sm:table-cell`}>
                        <Money testId="key-spent-month" value={key.spentThisMonth} />
                      </td>
                      <td
                        data-testid="key-limits-summary"
                        className={`${TD} hidden text-xs text-slate-600 lg:table-cell dark:text-slate-300`}
                      >
                        {limitsSummary(key.limits, t)}
                      </td>
                      <td
                        data-testid="key-tools-summary"
                        title={key.allowedTools?.join(", ")}
                        className={`${TD} hidden max-w-48 truncate font-mono text-xs text-slate-600 lg:table-cell dark:text-slate-300`}
                      >
                        {allowedToolsSummary(key.allowedTools, toolWords)}
                      </td>
                      <td className={`${TD} hidden sm:table-cell`}>
                        <span data-testid="key-status" data-status={state}>
                          {status}
                        </span>
                        {revoked && (
                          <span className="mt-1 block min-w-20 text-xs text-slate-500 dark:text-slate-400">
                            <DateText value={key.revokedAt} fallback="" />
                          </span>
                        )}
                      </td>
                      <td className={`${TD} text-right`}>
                        {!revoked && (
                          <button
                            type="button"
                            data-testid="key-actions-toggle"
                            aria-expanded={actionsOpen === key.id}
                            aria-label={t("gov.keys.actionsOf", { name: key.name })}
                            title={t("gov.actions")}
                            onClick={() => {
                              setConfirming(null);
                              setActionsOpen((open) => (open === key.id ? null : key.id));
                            }}
                            className={`${BUTTON_SM} font-semibold`}
                          >
                            <span aria-hidden="true">⋯</span>
                          </button>
                        )}
                      </td>
                    </tr>
                    {actionsOpen === key.id && !revoked && (
                      <tr data-testid="key-actions-row" data-key-name={key.name}>
                        <td colSpan={COLUMNS} className="px-2 py-2">
                          <div className="flex flex-wrap items-center justify-end gap-2">
                            <InlineConfirm
                              asking={confirming === key.id}
                              onAsk={() => setConfirming(key.id)}
                              onCancel={() => setConfirming(null)}
                              onConfirm={() => revoke(key)}
                              busy={revoking === key.id}
                              warning={t("gov.keys.revokeWarning")}
                              action={{
                                label: t("gov.keys.revoke"),
                                ariaLabel: t("gov.keys.revokeOf", { name: key.name }),
                                testId: "key-revoke",
                              }}
                              confirm={{
                                label: t("gov.keys.confirmRevoke"),
                                ariaLabel: t("gov.keys.confirmRevokeOf", { name: key.name }),
                                testId: "key-revoke-confirm",
                              }}
                              cancelTestId="key-revoke-cancel"
                              small
                            >
                              <button
                                type="button"
                                data-testid="key-limits-toggle"
                                aria-expanded={limitsOpen === key.id}
                                aria-label={t("gov.keys.editLimitsOf", { name: key.name })}
                                onClick={() => setLimitsOpen((open) => (open === key.id ? null : key.id))}
                                className={BUTTON_SM}
                              >
                                {t("gov.editLimits")}
                              </button>
                              <button
                                type="button"
                                data-testid="key-tools-toggle"
                                aria-expanded={toolsOpen === key.id}
                                aria-label={t("mcpKeys.editOf", { name: key.name })}
                                onClick={() => setToolsOpen((open) => (open === key.id ? null : key.id))}
                                className={BUTTON_SM}
                              >
                                {t("mcpKeys.edit")}
                              </button>
                              <button
                                type="button"
                                data-testid="key-lifecycle-toggle"
                                aria-expanded={lifeOpen === key.id}
                                aria-label={t("keyLife.toggleOf", { name: key.name })}
                                onClick={() => setLifeOpen((open) => (open === key.id ? null : key.id))}
                                className={BUTTON_SM}
                              >
                                {t("keyLife.toggle")}
                              </button>
                            </InlineConfirm>
                          </div>
                        </td>
                      </tr>
                    )}
                    {limitsOpen === key.id && !revoked && (
                      <tr data-testid="key-limits-row">
                        <td colSpan={COLUMNS} className="bg-slate-50 px-3 py-3 dark:bg-slate-950/40">
                          <p className="mb-2 text-sm font-medium">
                            {t("gov.keys.limitsOf", { name: key.name })}
                          </p>
                          <LimitsForm
                            testId="key-limits-form"
                            scope="key"
                            subjectId={key.id}
                            limits={key.limits}
                            onSaved={reload}
                            onClose={() => setLimitsOpen(null)}
                          />
                          <p className="mt-4 mb-1 text-sm font-medium">{t("gov.endUsers.title")}</p>
                          <p className="mb-2 text-xs text-slate-600 dark:text-slate-300">
                            {t("gov.endUsers.keyLead")}
                          </p>
                          <LimitsForm
                            testId="key-end-user-limits-form"
                            scope="end_user"
                            subjectId={key.id}
                            limits={key.endUserLimits}
                            onSaved={reload}
                          />
                        </td>
                      </tr>
                    )}
                    {toolsOpen === key.id && !revoked && (
                      <tr data-testid="key-tools-row">
                        <td colSpan={COLUMNS} className="bg-slate-50 px-3 py-3 dark:bg-slate-950/40">
                          <AllowedToolsForm
                            keyId={key.id}
                            keyName={key.name}
                            allowedTools={key.allowedTools}
                            onSaved={reload}
                            onClose={() => setToolsOpen(null)}
                          />
                        </td>
                      </tr>
                    )}
                    {created?.after === key.id && (
                      <tr data-testid="key-rotated-secret-row">
                        <td colSpan={COLUMNS} className="px-3 py-3">
                          <SecretPanel
                            name={created.name}
                            secret={created.secret}
                            onDone={() => setCreated(null)}
                          />
                        </td>
                      </tr>
                    )}
                    {lifeOpen === key.id && !revoked && (
                      <tr data-testid="key-lifecycle-row">
                        <td colSpan={COLUMNS} className="bg-slate-50 px-3 py-3 dark:bg-slate-950/40">
                          <KeyLifecycleForm
                            keyId={key.id}
                            keyName={key.name}
                            rotatedToName={rotatedTo || null}
                            onSaved={reload}
                            onRotated={({ secret, key: successor }) => {
                              setCreated({ secret, name: successor.name, after: key.id });
                              reload();
                            }}
                            onClose={() => setLifeOpen(null)}
                          />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
              {keys.length === 0 && (
                <tr>
                  <td colSpan={COLUMNS} className="px-3 py-8 text-center text-slate-500 dark:text-slate-400">
                    {loading ? t("gov.loading") : t("gov.keys.none")}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>

      <HowToCall origin={origin} model={model} />
      <HowToUseMcp origin={origin} />
    </div>
  );
}

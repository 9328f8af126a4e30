"use client";

import { Fragment, useState } from "react";
import { BUTTON, CARD, ErrorNote, Pill, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import type { Json } from "@/lib/client/api";
import { formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import { limitsApi } from "../client";
import type { EndUserSpend, GovernanceSettingsAnswer, LimitView } from "../contracts";
import { AssumedPrices } from "./assumed-prices";
import { LimitsForm, limitsSummary } from "./limits-form";
import { RunCeilings } from "./run-ceilings";
import { TenantSettingsForm } from "./tenant-settings-form";

const TH = "px-3 py-2 text-left font-medium whitespace-nowrap";
const TD = "px-3 py-2 align-middle";

const loadSettings = (signal: AbortSignal) => limitsApi.settings(signal);

/** "$4.00 / $5.00" (soft / hard), either side "—" when unset; "—" alone when neither is. */
function budgetCell(soft: string | null, hard: string | null): string {
  if (soft === null && hard === null) return "—";
  return `${formatMoney(soft)} / ${formatMoney(hard)}`;
}

const perMinute = (n: number | null) => formatCount(n);

function MembersTable(props: {
  users: Json<GovernanceSettingsAnswer>["users"];
  loading: boolean;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState<string | null>(null);
  const limitCells = (limits: LimitView | null) => [
    perMinute(limits?.requestsPerMinute ?? null),
    perMinute(limits?.tokensPerMinute ?? null),
    budgetCell(limits?.dailySoftUsd ?? null, limits?.dailyHardUsd ?? null),
    budgetCell(limits?.monthlySoftUsd ?? null, limits?.monthlyHardUsd ?? null),
  ];
  const limitHeads = [
    t("gov.limits.rpmShortHead"),
    t("gov.limits.tpmShortHead"),
    t("gov.limits.dailyHead"),
    t("gov.limits.monthlyHead"),
  ];
  return (
    <div className={`${CARD} overflow-x-auto`}>
      <table aria-busy={props.loading} data-testid="members-table" className="min-w-full text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
          <tr>
            <th scope="col" className={TH}>
              {t("gov.members.member")}
            </th>
            <th scope="col" className={`${TH} hidden sm:table-cell`}>
              {t("gov.members.role")}
            </th>
            {limitHeads.map((head) => (
              <th key={head} scope="col" className={`${TH} hidden text-right lg:table-cell`}>
                {head}
              </th>
            ))}
            <th scope="col" className={`${TH} hidden sm:table-cell lg:hidden`}>
              {t("gov.keys.limits")}
            </th>
            <th scope="col" className={TH}>
              <span className="sr-only">{t("gov.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {props.users.map((user) => (
            <Fragment key={user.id}>
              <tr data-testid="member-row" data-user-id={user.id} data-email={user.email}>
                <td className={`${TD} max-w-[12rem] sm:max-w-xs`}>
                  <span className="block truncate font-medium" title={user.name}>
                    {user.name}
                  </span>
                  <span
                    className="block truncate text-xs text-slate-500 dark:text-slate-400"
                    title={user.email}
                  >
                    {user.email}
                  </span>
                  <span className="mt-1 block text-xs text-slate-600 sm:hidden dark:text-slate-300">
                    {limitsSummary(user.limits, t)}
                  </span>
                </td>
                <td className={`${TD} hidden sm:table-cell`}>
                  <Pill tone={user.role === "admin" ? "indigo" : "slate"}>
                    {user.role === "admin" || user.role === "member" ? t(`role.${user.role}`) : user.role}
                  </Pill>
                </td>
                {limitCells(user.limits).map((text, i) => (
                  <td
                    key={limitHeads[i]}
                    className={`${TD} hidden text-right whitespace-nowrap tabular-nums lg:table-cell`}
                  >
                    {text}
                  </td>
                ))}
                <td
                  className={`${TD} hidden text-xs text-slate-600 sm:table-cell lg:hidden dark:text-slate-300`}
                >
                  {limitsSummary(user.limits, t)}
                </td>
                <td className={`${TD} text-right`}>
                  <button
                    type="button"
                    data-testid="member-limits-toggle"
                    aria-expanded={open === user.id}
                    aria-label={t("gov.members.editLimitsOf", { name: user.name })}
                    onClick={() => setOpen((o) => (o === user.id ? null : user.id))}
                    className={BUTTON}
                  >
                    {t("gov.editLimits")}
                  </button>
                </td>
              </tr>
              {open === user.id && (
                <tr data-testid="member-limits-row">
                  <td colSpan={8} className="bg-slate-50 px-3 py-3 dark:bg-slate-950/40">
                    <p className="mb-2 text-sm font-medium">
                      {t("gov.members.limitsOf", { name: user.name })}
                    </p>
                    <LimitsForm
                      testId="member-limits-form"
                      scope="user"
                      subjectId={user.id}
                      limits={user.limits}
                      onSaved={props.onSaved}
                      onClose={() => setOpen(null)}
                    />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
          {props.users.length === 0 && (
            <tr>
              <td colSpan={8} className="px-3 py-8 text-center text-slate-500 dark:text-slate-400">
                {props.loading ? t("gov.loading") : t("gov.members.none")}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * An end user's cost today: the priced calls' sum, with the unpriced calls said beside it ("$0.12 + 3 unpriced
 * calls"), or only "unpriced" when no call had a price. Unknown cost is never shown as $0.00.
 */
function EndUserCost({ row }: { row: EndUserSpend }) {
  const { t } = useI18n();
  const hint = t("cost.unpricedHint");
  if (row.costToday === null)
    return (
      <span title={hint}>
        <Pill tone="amber" testId="cost-unpriced">
          {t("cost.unpriced")}
        </Pill>
      </span>
    );
  if (row.unpricedCalls === 0) return <Money value={row.costToday} />;
  const unpriced =
    row.unpricedCalls === 1
      ? t("gov.endUsers.unpricedOne")
      : t("gov.endUsers.unpricedMany", { n: formatCount(row.unpricedCalls) });
  return (
    <span className="whitespace-nowrap">
      <Money value={row.costToday} />
      {" + "}
      <span data-testid="cost-unpriced-calls" title={hint} className="text-amber-700 dark:text-amber-300">
        {unpriced}
      </span>
    </span>
  );
}

/** The end users who spent most today, with their calls: who a per-end-user template holds back first. */
function TopEndUsers(props: { rows: EndUserSpend[]; loading: boolean }) {
  const { t } = useI18n();
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-medium">{t("gov.endUsers.top")}</h3>
      <div className={`${CARD} overflow-x-auto`}>
        <table aria-busy={props.loading} data-testid="top-end-users" className="min-w-full text-sm">
          <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              <th scope="col" className={TH}>
                {t("gov.endUsers.endUser")}
              </th>
              <th scope="col" className={`${TH} text-right`}>
                {t("gov.endUsers.calls")}
              </th>
              <th scope="col" className={`${TH} text-right`}>
                {t("gov.endUsers.cost")}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {props.rows.map((row) => (
              <tr key={row.endUser} data-testid="top-end-user" data-end-user={row.endUser}>
                <td className={`${TD} max-w-[12rem] truncate sm:max-w-xs`} title={row.endUser}>
                  {row.endUser}
                </td>
                <td className={`${TD} text-right tabular-nums`}>{formatCount(row.calls)}</td>
                <td data-testid="top-end-user-cost" className={`${TD} text-right tabular-nums`}>
                  <EndUserCost row={row} />
                </td>
              </tr>
            ))}
            {props.rows.length === 0 && (
              <tr>
                <td colSpan={3} className="px-3 py-6 text-center text-slate-500 dark:text-slate-400">
                  {t("gov.endUsers.none")}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The limits screen: retention and cache, the tenant's limits and budgets, and each member's. */
export function LimitsAdmin() {
  const { t } = useI18n();
  const { data, error, loading, reload } = useLoad(loadSettings);
  if (!data)
    return error ? (
      <ErrorNote message={error.message} />
    ) : (
      <p className="text-sm text-slate-500">{t("gov.loading")}</p>
    );
  return (
    <div className="min-w-0 space-y-6">
      {error && <ErrorNote message={error.message} />}
      <Section title={t("gov.settings.title")} lead={t("gov.settings.lead")} testId="tenant-settings">
        <TenantSettingsForm settings={data} onSaved={reload} />
      </Section>
      <Section title={t("gov.tenantLimits.title")} lead={t("gov.tenantLimits.lead")} testId="tenant-limits">
        <LimitsForm testId="tenant-limits-form" scope="tenant" limits={data.tenantLimits} onSaved={reload} />
      </Section>
      <Section title={t("gov.endUsers.title")} lead={t("gov.endUsers.lead")} testId="end-user-limits">
        <LimitsForm
          testId="end-user-limits-form"
          scope="end_user"
          limits={data.tenantEndUserLimits}
          onSaved={reload}
        />
        <TopEndUsers rows={data.topEndUsers} loading={loading} />
      </Section>
      <Section title={t("gov.runs.title")} lead={t("gov.runs.lead")} testId="run-ceilings">
        <RunCeilings />
      </Section>
      <Section title={t("gov.assumed.title")} lead={t("gov.assumed.lead")} testId="assumed-prices-section">
        <AssumedPrices data={data} onSaved={reload} />
      </Section>
      <section aria-labelledby="members-title" className="min-w-0 space-y-3" data-testid="member-limits">
        <header className="space-y-1">
          <h2 id="members-title" className="font-semibold">
            {t("gov.members.title")}
          </h2>
          <p className="text-sm text-slate-600 dark:text-slate-300">{t("gov.members.lead")}</p>
        </header>
        <MembersTable users={data.users} loading={loading} onSaved={reload} />
      </section>
    </div>
  );
}

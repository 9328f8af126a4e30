"use client";

import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import { useCopyText } from "@/components/admin-kit/use-copy-text";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { Badge, formatDateTime, formatDuration, formatTokens } from "@/features/admin-tables/components";
import { AskAssistantButton, shortId } from "@/features/drawer/components";
import { AddToDatasetButton } from "@/features/evals/components";
import type { ReplayResponse } from "@/features/replay/contracts";
import { buildReplay } from "@/features/replay/replay-view";
import { ReplayHeader } from "./replay-header";
import { ScoreList } from "./score-list";
import { Steps } from "./steps";
import { Waterfall } from "./waterfall";

const BUTTON =
  "inline-flex items-center gap-1 rounded-md border border-slate-300 px-2.5 py-1 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800";
const DISABLED =
  "inline-flex items-center gap-1 rounded-md border border-slate-200 px-2.5 py-1 text-sm text-slate-400 dark:border-slate-800";

/** The event the URL's `#event-<seq>` names: scrolled to and marked, on load and whenever the hash changes. */
function useHighlightedEvent(): number | null {
  const [seq, setSeq] = useState<number | null>(null);
  useEffect(() => {
    const read = () => {
      const match = /^#event-(\d+)$/.exec(window.location.hash);
      const next = match ? Number(match[1]) : null;
      setSeq(next);
      if (next !== null)
        requestAnimationFrame(() =>
          document.getElementById(`event-${next}`)?.scrollIntoView({ block: "center" }),
        );
    };
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  return seq;
}

function PermalinkButton({ turnId }: { turnId: string }) {
  const { t } = useI18n();
  const url = typeof window === "undefined" ? "" : `${window.location.origin}/dev/agent/audit/${turnId}`;
  const { state, copy } = useCopyText(url);
  return (
    <button type="button" data-testid="replay-copy-link" onClick={copy} className={BUTTON}>
      {state === "copied" ? t("replay.copied") : t("replay.copyLink")}
    </button>
  );
}

const CHAIN_TONE = {
  intact: "bg-green-100 text-green-800 dark:bg-green-950/60 dark:text-green-200",
  broken: "bg-red-100 text-red-800 dark:bg-red-950/60 dark:text-red-200",
  unchained: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
} as const;

/** Whether the turn's audit events still match their tamper-evident chain; a break links to its event. */
function ChainBadge({ chain }: { chain: ReplayResponse["chain"] }) {
  const { t } = useI18n();
  const pill = `inline-block rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${CHAIN_TONE[chain.state]}`;
  if (chain.state === "broken")
    return (
      <a
        href={`#event-${chain.seq}`}
        data-testid="replay-chain"
        data-state="broken"
        title={t(`replay.chain.${chain.reason}`)}
        className={`${pill} hover:underline`}
      >
        {t("replay.chain.broken", { seq: String(chain.seq) })}
      </a>
    );
  return (
    <span
      data-testid="replay-chain"
      data-state={chain.state}
      title={
        chain.state === "intact"
          ? t("replay.chain.intactHint", { n: String(chain.checked) })
          : t("replay.chain.unchainedHint")
      }
      className={pill}
    >
      {t(chain.state === "intact" ? "replay.chain.intact" : "replay.chain.unchained")}
    </span>
  );
}

/** An images or audio call's units as one line: "2 images (hd, 1024x1792)", "42 s", "120 characters". */
function unitsText(units: NonNullable<ReplayResponse["turn"]["units"]>): string {
  const parts: string[] = [];
  if (units.images !== undefined) {
    const kind = [units.imageQuality, units.imageSize].filter(Boolean).join(", ");
    parts.push(`${units.images} image${units.images === 1 ? "" : "s"}${kind ? ` (${kind})` : ""}`);
  }
  if (units.seconds !== undefined) parts.push(`${units.seconds} s`);
  if (units.characters !== undefined) parts.push(`${units.characters} characters`);
  return parts.join(", ") || "—";
}

function Summary({ data, superAdmin }: { data: ReplayResponse; superAdmin: boolean }) {
  const { t, locale } = useI18n();
  const { turn } = data;
  const who = turn.apiKeyName ?? turn.apiKeyId ?? turn.userEmail ?? "—";
  const served = turn.servedModel
    ? `${turn.servedProvider ? `${turn.servedProvider}/` : ""}${turn.servedModel}`
    : "—";
  const items: [string, React.ReactNode][] = [
    [t("replay.started"), formatDateTime(new Date(turn.startedAt), locale)],
    [turn.apiKeyId ? t("replay.apiKey") : t("replay.user"), who],
    [t("replay.source"), turn.source],
    [
      t("replay.requestedModel"),
      <span key="r" className="font-mono">
        {turn.requestedModel}
      </span>,
    ],
    [
      t("replay.served"),
      <span key="s" className="font-mono">
        {served}
      </span>,
    ],
    [t("replay.rounds"), String(turn.rounds)],
    [
      t("replay.tokens"),
      t("replay.tokensInOut", {
        in: formatTokens(turn.inputTokens + turn.cachedInputTokens + turn.cacheWriteTokens, locale),
        out: formatTokens(turn.outputTokens, locale),
      }),
    ],
    [t("replay.cost"), <Money key="c" value={turn.cost} empty={t("replay.unpriced")} />],
    [t("replay.firstToken"), turn.firstTokenMs === null ? "—" : formatDuration(turn.firstTokenMs)],
    [t("replay.latency"), turn.latencyMs === null ? "—" : formatDuration(turn.latencyMs)],
  ];
  if (turn.routing) items.push([t("replay.routing"), turn.routing]);
  if (turn.units) items.push([t("replay.units"), unitsText(turn.units)]);
  if (turn.endUser) items.push([t("replay.endUser"), turn.endUser]);
  if (turn.skills.length)
    items.push([t("replay.skills"), <SkillList key="k" turn={turn} link={!superAdmin} />]);
  if (superAdmin) items.unshift([t("replay.tenant"), turn.tenantName ?? turn.tenantId]);
  return (
    <dl
      data-testid="replay-summary"
      className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-lg border border-slate-200 bg-white p-3 text-sm sm:grid-cols-4 lg:grid-cols-6 dark:border-slate-800 dark:bg-slate-900"
    >
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
          <dd className="break-words tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The skills the turn loaded, each with the version it got; a tenant's admin gets links to the skills' pages (the
 * active tenant's, so not for the super admin, who may be reading another tenant's turn).
 */
function SkillList({ turn, link }: { turn: ReplayResponse["turn"]; link: boolean }) {
  return (
    <span data-testid="replay-skills" className="font-mono">
      {turn.skills.map((s, i) => (
        <span key={`${s.name}@${s.version}`}>
          {i > 0 ? ", " : ""}
          {link ? (
            <Link
              href={`/dev/agent/skills/${encodeURIComponent(s.name)}`}
              className="text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {s.name}
            </Link>
          ) : (
            s.name
          )}{" "}
          v{s.version}
        </span>
      ))}
    </span>
  );
}

/**
 * A turn replayed: what was asked, each model call and tool in order with its timing, and the answer. `embedded`
 * (the review view) leaves out the audit page's own links and actions: a reviewer works the turn beside it.
 */
export function ReplayView({
  data,
  superAdmin,
  embedded = false,
}: {
  data: ReplayResponse;
  superAdmin: boolean;
  embedded?: boolean;
}) {
  const { t } = useI18n();
  const replay = useMemo(() => buildReplay(data.turn, data.events), [data]);
  const highlighted = useHighlightedEvent();
  const { turn } = data;
  return (
    <div data-testid="replay-page" data-turn-id={turn.id} className="min-w-0 space-y-6">
      {embedded ? (
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <h2 className="text-lg font-semibold">{t("replay.title")}</h2>
          <Badge value={turn.status} />
          <span data-testid="replay-turn-id" className="font-mono text-xs break-all text-slate-500">
            {turn.id}
          </span>
          {turn.errorClass && (
            <p className="w-full rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
              <span className="font-mono">{turn.errorClass}</span>
              {turn.errorMessage ? `: ${turn.errorMessage}` : ""}
            </p>
          )}
        </div>
      ) : (
        <ReplayHeader
          back={{ href: "/dev/agent/audit", label: t("replay.backToAudit") }}
          links={
            <>
              {data.prev ? (
                <Link data-testid="replay-prev" href={`/dev/agent/audit/${data.prev}`} className={BUTTON}>
                  ← {t("replay.prev")}
                </Link>
              ) : (
                <span aria-disabled="true" data-testid="replay-prev-none" className={DISABLED}>
                  ← {t("replay.prev")}
                </span>
              )}
              {data.next ? (
                <Link data-testid="replay-next" href={`/dev/agent/audit/${data.next}`} className={BUTTON}>
                  {t("replay.next")} →
                </Link>
              ) : (
                <span aria-disabled="true" data-testid="replay-next-none" className={DISABLED}>
                  {t("replay.next")} →
                </span>
              )}
              <PermalinkButton turnId={turn.id} />
            </>
          }
          title={t("replay.title")}
          status={turn.status}
          badges={data.events.length > 0 && <ChainBadge chain={data.chain} />}
          id={{ value: turn.id, testId: "replay-turn-id" }}
        >
          {/* A tenant's turn becomes a case of one of its datasets (the platform view has no tenant to add to). */}
          {!superAdmin && (
            <div className="flex flex-wrap items-start gap-2">
              <AddToDatasetButton turnId={turn.id} />
              <AskAssistantButton
                item={{
                  type: "audit_turn",
                  id: turn.id,
                  label: t("context.label.audit_turn", { id: shortId(turn.id) }),
                }}
              />
            </div>
          )}
          {turn.errorClass && (
            <p className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
              <span className="font-mono">{turn.errorClass}</span>
              {turn.errorMessage ? `: ${turn.errorMessage}` : ""}
            </p>
          )}
        </ReplayHeader>
      )}
      <Summary data={data} superAdmin={superAdmin} />
      {data.scores.length > 0 && <ScoreList scores={data.scores} />}
      {replay.missing.length > 0 && (
        <ul
          data-testid="replay-missing"
          className="list-inside list-disc rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
        >
          {replay.missing.map((m) => (
            <li key={m}>{t(`replay.missing.${m}`)}</li>
          ))}
        </ul>
      )}
      <section aria-labelledby="replay-waterfall-title" className="space-y-2">
        <h2 id="replay-waterfall-title" className="text-lg font-semibold">
          {t("replay.waterfall")}
        </h2>
        {replay.waterfall.length ? (
          <div className="rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
            <Waterfall rows={replay.waterfall} totalMs={replay.totalMs} />
          </div>
        ) : (
          <p className="text-sm text-slate-500">{t("replay.noTimings")}</p>
        )}
      </section>
      <section aria-labelledby="replay-steps-title" className="space-y-2">
        <h2 id="replay-steps-title" className="text-lg font-semibold">
          {t("replay.steps")}
        </h2>
        {replay.steps.length ? (
          <Steps steps={replay.steps} highlighted={highlighted} />
        ) : (
          <p className="text-sm text-slate-500">{t("replay.noEvents")}</p>
        )}
      </section>
    </div>
  );
}

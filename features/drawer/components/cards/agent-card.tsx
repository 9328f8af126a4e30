"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { useI18n } from "@/components/i18n";
import { CONTEXT_TYPES, type ContextChip, type ContextType } from "@/features/drawer/contracts";
import type { AgentCard } from "@/lib/turns/cards";
import { chipKey } from "../context-chips";
import { useAgentDrawer } from "../drawer-context";
import { type CardCell, type CardCellValue, cardCell, isAppPath } from "./format";

type Kv = Extract<AgentCard, { kind: "kv" }>;
type Table = Extract<AgentCard, { kind: "table" }>;
type Links = Extract<AgentCard, { kind: "links" }>;

const LINK =
  "text-indigo-600 underline underline-offset-2 hover:text-indigo-800 dark:text-indigo-400 dark:hover:text-indigo-300";
const CARD =
  "min-w-0 space-y-2 rounded-md border border-slate-200 bg-white px-3 py-2 text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100";

/** A link of a card: an app path through Next's router (the drawer stays open), an address in a new tab. */
export function CardLink({ href, children, testId }: { href: string; children: ReactNode; testId?: string }) {
  const { t } = useI18n();
  if (isAppPath(href))
    return (
      <Link href={href} data-testid={testId} className={LINK}>
        {children}
      </Link>
    );
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" data-testid={testId} className={LINK}>
      {children}
      <span className="sr-only"> {t("agent.link.newTab")}</span>
    </a>
  );
}

function useCell() {
  const { t, locale } = useI18n();
  const words = { yes: t("context.card.yes"), no: t("context.card.no"), open: t("context.card.open") };
  return (type: Parameters<typeof cardCell>[0], value: CardCellValue, label?: unknown) =>
    cardCell(type, value, locale, { ...words, label });
}

function CellText({ cell }: { cell: CardCell }) {
  if (cell.href) return <CardLink href={cell.href}>{cell.text}</CardLink>;
  if (cell.dateTime)
    return (
      <time dateTime={cell.dateTime} title={cell.dateTime}>
        {cell.text}
      </time>
    );
  return <span title={cell.title}>{cell.text}</span>;
}

const isContextType = (type: string): type is ContextType =>
  (CONTEXT_TYPES as readonly string[]).includes(type);

/** "Use as context": the card's object becomes a chip above the composer, for the next message. */
function UseAsContext({ item }: { item: ContextChip }) {
  const { t } = useI18n();
  const { askAssistant, chips } = useAgentDrawer();
  if (!askAssistant) return null;
  // Already waiting above the composer: say so, rather than offer it again.
  const added = chips.some((c) => chipKey(c) === chipKey(item));
  return (
    <button
      type="button"
      data-testid="agent-card-use-context"
      data-added={added || undefined}
      aria-label={t(added ? "context.inContextFor" : "context.useAsContextFor", { label: item.label })}
      onClick={() => askAssistant(item)}
      className="rounded-md border border-slate-300 px-2 py-0.5 text-[0.7rem] hover:bg-slate-100 data-[added]:border-indigo-300 data-[added]:bg-indigo-50 data-[added]:text-indigo-800 dark:border-slate-600 dark:hover:bg-slate-800 dark:data-[added]:border-indigo-800 dark:data-[added]:bg-indigo-950/60 dark:data-[added]:text-indigo-200"
    >
      {added ? `✓ ${t("context.inContext")}` : t("context.useAsContext")}
    </button>
  );
}

function KvCard({ card }: { card: Kv }) {
  const cell = useCell();
  const context = card.context && isContextType(card.context.type) ? card.context : undefined;
  return (
    <>
      {(card.title || context) && (
        <div className="flex flex-wrap items-center gap-2">
          {card.title && <h4 className="font-semibold">{card.title}</h4>}
          {context && (
            <span className="ml-auto">
              <UseAsContext item={{ ...context, type: context.type as ContextType }} />
            </span>
          )}
        </div>
      )}
      <dl className="grid grid-cols-[minmax(5rem,auto)_minmax(0,1fr)] gap-x-3 gap-y-1">
        {card.items.map((item, index) => {
          const shown = cell(item.type, item.value);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a card's items are fixed once it arrives
            <div key={index} className="contents">
              <dt className="text-slate-500 dark:text-slate-400">{item.label}</dt>
              <dd
                data-testid="agent-card-value"
                className={`min-w-0 break-words ${shown.numeric ? "tabular-nums" : ""}`}
              >
                {item.href ? <CardLink href={item.href}>{shown.text}</CardLink> : <CellText cell={shown} />}
              </dd>
            </div>
          );
        })}
      </dl>
    </>
  );
}

function TableCard({ card }: { card: Table }) {
  const { t } = useI18n();
  const cell = useCell();
  return (
    <>
      {card.title && <h4 className="font-semibold">{card.title}</h4>}
      {/* Wider than the drawer (360 px screens), the table scrolls in its own box; keys scroll it too. */}
      <section
        data-testid="agent-card-table-scroll"
        aria-label={card.title ? `${card.title}: ${t("drawer.table.scroll")}` : t("drawer.table.scroll")}
        className="max-h-80 max-w-full overflow-auto rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
      >
        <table className="w-max min-w-full border-collapse">
          <thead className="sticky top-0 bg-slate-100 dark:bg-slate-800">
            <tr>
              {card.columns.map((column) => (
                <th
                  key={column.key}
                  scope="col"
                  data-type={column.type}
                  className={`border border-slate-200 px-2 py-1 font-semibold whitespace-nowrap dark:border-slate-700 ${
                    column.type === "number" || column.type === "money" ? "text-right" : "text-left"
                  }`}
                >
                  {column.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {card.rows.length === 0 && (
              <tr>
                <td colSpan={card.columns.length} className="px-2 py-2 text-center text-slate-500">
                  {t("context.card.noRows")}
                </td>
              </tr>
            )}
            {card.rows.map((row, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a card's rows are fixed once it arrives
              <tr key={index} data-testid="agent-card-row">
                {card.columns.map((column) => {
                  const shown = cell(column.type, row[column.key], row[`${column.key}Label`]);
                  return (
                    <td
                      key={column.key}
                      data-type={column.type}
                      className={`max-w-64 border border-slate-200 px-2 py-1 align-top dark:border-slate-700 ${
                        shown.numeric ? "text-right whitespace-nowrap tabular-nums" : "break-words"
                      }`}
                    >
                      <CellText cell={shown} />
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {card.link && (
        <p>
          <CardLink href={card.link.href} testId="agent-card-link">
            {card.link.label}
          </CardLink>
        </p>
      )}
    </>
  );
}

function LinksCard({ card }: { card: Links }) {
  return (
    <>
      {card.title && <h4 className="font-semibold">{card.title}</h4>}
      <ul className="list-disc space-y-0.5 pl-4">
        {card.links.map((link) => (
          <li key={`${link.href} ${link.label}`}>
            <CardLink href={link.href} testId="agent-card-link">
              {link.label}
            </CardLink>
          </li>
        ))}
      </ul>
    </>
  );
}

/** One card a tool returned beside its result: key-value, a typed table, or a list of links. */
export function AgentCardView({ card }: { card: AgentCard }) {
  const { t } = useI18n();
  return (
    <section
      data-testid="agent-card"
      data-kind={card.kind}
      aria-label={card.title ?? t(`context.card.kind.${card.kind}`)}
      className={CARD}
    >
      {card.kind === "kv" ? (
        <KvCard card={card} />
      ) : card.kind === "table" ? (
        <TableCard card={card} />
      ) : (
        <LinksCard card={card} />
      )}
    </section>
  );
}

/** The cards of one tool result, under its tool card. */
export function AgentCards({ cards }: { cards: AgentCard[] | undefined }) {
  if (!cards?.length) return null;
  return (
    <div className="space-y-2" data-testid="agent-cards">
      {cards.map((card, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a result's cards are fixed once it arrives
        <AgentCardView key={index} card={card} />
      ))}
    </div>
  );
}

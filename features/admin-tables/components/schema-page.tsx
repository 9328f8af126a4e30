"use client";

import { type ReactNode, Suspense, useCallback, useMemo } from "react";
import { useI18n } from "@/components/i18n";
import type { PageSchema, Row } from "@/features/admin-tables/contracts";
import { schemaUrl } from "./api";
import { BadgeLabelsProvider } from "./badges";
import { Charts } from "./charts";
import { ColumnPicker } from "./column-picker";
import { DataTable } from "./data-table";
import { DetailDrawer } from "./detail-drawer";
import { ErrorNote } from "./error-note";
import { FilterBuilder } from "./filter-builder";
import { formatDateTime, formatNumber, pick } from "./format";
import { MetricCards } from "./metric-cards";
import { RowActionButtons, RowActionDialog, RowActionError, useRowActions } from "./row-actions";
import { SegmentTabs } from "./segment-tabs";
import { useColumnVisibility } from "./use-column-visibility";
import { usePageQuery } from "./use-page-query";
import { useRows } from "./use-rows";
import { ViewsMenu } from "./views-menu";

const BUTTON =
  "rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800";

function RowCountText(props: { shown: number; count: { count: number; approximate: boolean } | null }) {
  const { t, locale } = useI18n();
  const shown = formatNumber(props.shown, locale, 0);
  if (!props.count) return <>{t("schema.showing", { shown })}</>;
  const total = formatNumber(props.count.count, locale, 0);
  return <>{t(props.count.approximate ? "schema.showingOfApprox" : "schema.showingOf", { shown, total })}</>;
}

/** Everything that depends on the URL (filters, sort, segment, the open detail). */
function SchemaPageBody({
  schema,
  superAdmin,
  viewerId,
  urlPrefix,
  refresh,
}: {
  schema: PageSchema;
  superAdmin: boolean;
  viewerId: string;
  urlPrefix?: string;
  refresh?: number;
}) {
  const { t, locale } = useI18n();
  const query = usePageQuery(schema, urlPrefix);
  const columns = useMemo(
    () => schema.columns.filter((c) => superAdmin || !c.superAdminOnly),
    [schema.columns, superAdmin],
  );
  const visibility = useColumnVisibility(columns, schema.key, viewerId);
  const rows = useRows(schema.key, query.apiQuery, query.filterQuery, schema.pageSize, refresh);
  const actions = useRowActions(rows.reload);
  const rowActions = schema.rowActions;
  // The table's rows carry only the links not kept for the detail, so the key columns keep their room.
  const rowLinks = useMemo(() => schema.rowLinks?.filter((l) => !l.detailOnly), [schema.rowLinks]);
  const renderActions = useCallback(
    (row: Row, id: string) => (
      <RowActionButtons actions={rowActions ?? []} links={rowLinks} row={row} rowId={id} api={actions} />
    ),
    [rowActions, rowLinks, actions],
  );
  const hasFilters = (schema.filters?.length ?? 0) > 0 || superAdmin || Object.keys(query.filters).length > 0;

  return (
    <>
      {schema.metrics && schema.metrics.length > 0 && (
        <MetricCards schemaKey={schema.key} metrics={schema.metrics} filterQuery={query.filterQuery} />
      )}
      {schema.segments && (
        <SegmentTabs segments={schema.segments} active={query.segment} onSelect={query.setSegment} />
      )}
      {hasFilters && (
        <FilterBuilder
          schemaKey={schema.key}
          // Remounted when the URL's filters change (Back, Clear, a link), so an open editor follows the URL.
          key={JSON.stringify(query.filters)}
          filters={schema.filters ?? []}
          superAdmin={superAdmin}
          values={query.filters}
          onApply={query.applyFilters}
          onClear={query.clearFilters}
        />
      )}
      {schema.charts && schema.charts.length > 0 && (
        <Charts schemaKey={schema.key} charts={schema.charts} filterQuery={query.filterQuery} />
      )}
      <section aria-label={t("schema.table")} className="space-y-3">
        <div className="flex flex-wrap items-center gap-3">
          <p
            data-testid="row-count"
            aria-live="polite"
            className="text-sm text-slate-600 dark:text-slate-300"
          >
            {rows.loading && rows.rows.length === 0 ? (
              t("schema.loading")
            ) : (
              <RowCountText shown={rows.rows.length} count={rows.count} />
            )}
          </p>
          <div className="ml-auto flex flex-wrap items-center justify-end gap-2">
            {/* Views are a tenant's (and a person's in it): the super admin's all-tenant view has none. */}
            {!urlPrefix && !superAdmin && (
              <ViewsMenu schema={schema} query={query} visibility={visibility} className={BUTTON} />
            )}
            {columns.length > 3 && (
              <ColumnPicker columns={columns} visibility={visibility} className={BUTTON} />
            )}
            <a
              data-testid="export-csv"
              href={schemaUrl(schema.key, "export", query.apiQuery)}
              download
              className={BUTTON}
            >
              {t("schema.exportCsv")}
            </a>
          </div>
        </div>
        {rows.asOf && (
          <p data-testid="as-of" className="text-sm text-amber-700 dark:text-amber-300">
            {t("schema.asOf", { time: formatDateTime(new Date(rows.asOf), locale) })}
          </p>
        )}
        {rows.error && <ErrorNote message={rows.error.message} />}
        <RowActionError api={actions} />
        <DataTable
          caption={pick(schema.title, locale)}
          columns={visibility.visible}
          pinned={visibility.pinned}
          idField={schema.idField}
          rows={rows.rows}
          sort={query.sort}
          loading={rows.loading}
          onSort={query.toggleSort}
          onOpen={schema.detail ? query.openDetail : undefined}
          renderActions={rowActions?.length || rowLinks?.length ? renderActions : undefined}
        />
        {rows.nextCursor && !rows.loading && (
          <div className="flex justify-center">
            <button
              type="button"
              data-testid="load-more"
              disabled={rows.loadingMore}
              onClick={rows.loadMore}
              className={BUTTON}
            >
              {rows.loadingMore ? t("schema.loading") : t("schema.loadMore")}
            </button>
          </div>
        )}
      </section>
      {actions.asking && (
        <RowActionDialog
          key={`${actions.asking.rowId}:${actions.asking.action.key}`}
          api={actions}
          asking={actions.asking}
        />
      )}
      {schema.detail && query.detail && (
        <DetailDrawer
          key={query.detail}
          schemaKey={schema.key}
          def={schema.detail}
          links={schema.rowLinks}
          assistant={schema.assistant}
          id={query.detail}
          onClose={query.closeDetail}
        />
      )}
    </>
  );
}

/**
 * Renders any admin page from its schema. `scope` (already translated, e.g. "Scope: Acme") is shown under
 * the title when given, and `note` under it. The server should key this component by the active tenant, so a tenant switch
 * (router.refresh) starts the page over instead of showing the previous tenant's rows.
 *
 * Embedded (one list among other sections of a page) its title is a second-level heading; `urlPrefix` keeps
 * its URL state apart from another list's, and a new `refresh` value reloads its rows (e.g. after an invite).
 */
export function SchemaPageClient({
  schema,
  superAdmin,
  viewerId,
  scope,
  note,
  embedded = false,
  urlPrefix,
  refresh,
  actions,
}: {
  schema: PageSchema;
  superAdmin: boolean;
  /** The signed-in user's id: the column picker remembers its choice per user (and page). */
  viewerId: string;
  scope?: string;
  /** Controls under the heading that act on the page as a whole (e.g. "New prompt"). */
  actions?: ReactNode;
  /** A line under the scope (already translated), e.g. the date the cost dashboard's prices are as of. */
  note?: string;
  embedded?: boolean;
  urlPrefix?: string;
  refresh?: number;
}) {
  const { t, locale } = useI18n();
  const Title = embedded ? "h2" : "h1";
  return (
    <div
      data-testid="schema-page"
      data-schema-key={schema.key}
      className={`min-w-0 ${embedded ? "space-y-4" : "space-y-6"}`}
    >
      <header className="space-y-1">
        <Title className={embedded ? "text-lg font-semibold" : "text-2xl font-bold"}>
          {pick(schema.title, locale)}
        </Title>
        {schema.description && (
          <p className={`text-slate-600 dark:text-slate-300 ${embedded ? "text-sm" : ""}`}>
            {pick(schema.description, locale)}
          </p>
        )}
        {scope && (
          <p data-testid="page-scope" className="text-sm text-slate-500">
            {scope}
          </p>
        )}
        {note && (
          <p data-testid="page-note" className="text-sm text-slate-500">
            {note}
          </p>
        )}
        {actions && <div className="pt-2">{actions}</div>}
      </header>
      {/* useSearchParams needs a boundary when the route is prerendered. */}
      <Suspense fallback={<p className="text-sm text-slate-500">{t("schema.loading")}</p>}>
        <BadgeLabelsProvider schema={schema}>
          <SchemaPageBody
            schema={schema}
            superAdmin={superAdmin}
            viewerId={viewerId}
            urlPrefix={urlPrefix}
            refresh={refresh}
          />
        </BadgeLabelsProvider>
      </Suspense>
    </div>
  );
}

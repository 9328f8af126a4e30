"use client";

import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { PageSchema } from "@/features/admin-tables/contracts";
import type { SavedViewList, SavedViewStateInput, SavedViewView } from "@/features/saved-views/contracts";
import { fetchJson, isAbort, sendJson, toApiError } from "@/lib/client/api";
import type { ColumnVisibility } from "./use-column-visibility";
import type { PageQueryApi } from "./use-page-query";
import { urlHasViewState, viewStateFromUrl } from "./view-url";

const ITEM =
  "block w-full rounded px-2 py-1 text-left hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:hover:bg-slate-800";

/** A view the caller may change: their own private view, or a shared one when they are a tenant admin. */
const editable = (view: SavedViewView, canShare: boolean) => (view.shared ? canShare : view.mine);

/**
 * "Views": the page's saved views (the caller's and the tenant's shared ones), picking one to show it, saving the
 * current filters, sort and columns as a new view or into the current one, making it the default, deleting it. On
 * opening a page whose URL names no filter, segment or sort, the default view is shown (a URL that does wins).
 */
export function ViewsMenu(props: {
  schema: PageSchema;
  query: PageQueryApi;
  visibility: ColumnVisibility;
  className: string;
}) {
  const { schema, query, visibility } = props;
  const { t } = useI18n();
  const ref = useRef<HTMLDetailsElement>(null);
  const formId = useId();
  const [list, setList] = useState<SavedViewList | null>(null);
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [form, setForm] = useState<{ name: string; shared: boolean; isDefault: boolean } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const url = `/api/views?page=${encodeURIComponent(schema.key)}`;

  const show = useCallback(
    (view: SavedViewView, mode: "push" | "replace") => {
      setCurrentId(view.id);
      query.applyView(view.state, mode);
      visibility.applyView(view.state);
    },
    [query, visibility],
  );

  // Loaded once per page: the default is applied only then, and only to a URL that says nothing itself.
  const applyDefault = useRef({ query, show });
  applyDefault.current = { query, show };
  useEffect(() => {
    const controller = new AbortController();
    fetchJson<SavedViewList>(url, controller.signal).then(
      (loaded) => {
        setList(loaded);
        const params = new URLSearchParams(window.location.search);
        const initial = loaded.views.find((v) => v.id === loaded.defaultId);
        if (initial && !urlHasViewState(params)) applyDefault.current.show(initial, "replace");
      },
      (error: unknown) => {
        if (!isAbort(error))
          setNote({ error: true, text: t("views.loadFailed", { message: toApiError(error).message }) });
      },
    );
    return () => controller.abort();
  }, [url, t]);

  useEffect(() => {
    const close = (e: Event) => {
      const details = ref.current;
      if (!details?.open) return;
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !details.contains(e.target as Node)) {
        details.open = false;
        if (e instanceof KeyboardEvent) details.querySelector("summary")?.focus();
      }
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, []);

  const reload = async () => setList(await fetchJson<SavedViewList>(url));
  const currentState = (): SavedViewStateInput => ({
    ...viewStateFromUrl(query, schema),
    ...visibility.toView(),
  });
  const run = async (action: () => Promise<string>) => {
    setBusy(true);
    try {
      const text = await action();
      await reload();
      setNote({ error: false, text });
    } catch (error) {
      setNote({ error: true, text: toApiError(error).message });
    } finally {
      setBusy(false);
    }
  };

  if (!list && !note) return null;
  const views = list?.views ?? [];
  const canShare = list?.canShare ?? false;
  const current = views.find((v) => v.id === currentId) ?? null;

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!form) return;
    void run(async () => {
      const { view } = await sendJson<{ view: SavedViewView }>("POST", "/api/views", {
        page: schema.key,
        name: form.name,
        state: currentState(),
        shared: form.shared,
        isDefault: form.isDefault,
      });
      setCurrentId(view.id);
      setForm(null);
      return t("views.saved", { name: view.name });
    });
  };
  const patch = (body: Record<string, unknown>, message: "views.updated" | "views.defaultSet") =>
    current &&
    void run(async () => {
      await sendJson("PATCH", `/api/views/${current.id}`, body);
      return t(message, { name: current.name });
    });

  const group = (title: string, items: SavedViewView[]) =>
    items.length > 0 && (
      <li>
        <p className="px-2 pt-1 text-xs font-medium text-slate-500 dark:text-slate-400">{title}</p>
        <ul>
          {items.map((view) => (
            <li key={view.id}>
              <button
                type="button"
                data-testid="view-option"
                data-view-name={view.name}
                aria-current={view.id === currentId || undefined}
                onClick={() => {
                  setConfirmDelete(false);
                  setNote(null);
                  show(view, "push");
                }}
                className={`${ITEM} flex items-center gap-2 ${view.id === currentId ? "font-semibold" : ""}`}
              >
                <span className="truncate">{view.name}</span>
                {view.shared && (
                  <span
                    data-testid="view-shared"
                    title={t("views.sharedTitle")}
                    className="rounded bg-indigo-100 px-1 text-xs text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200"
                  >
                    {t("views.shared")}
                  </span>
                )}
                {view.isDefault && <span className="text-xs text-slate-500">({t("views.isDefault")})</span>}
              </button>
            </li>
          ))}
        </ul>
      </li>
    );

  return (
    <details ref={ref} data-testid="views-menu" className="relative">
      <summary
        data-testid="views-menu-toggle"
        title={t("views.menuTitle")}
        className={`${props.className} flex max-w-[14rem] cursor-pointer list-none items-center gap-1 select-none`}
      >
        <span className="truncate" data-testid="views-current">
          {t("views.current", { name: current?.name ?? t("views.default") })}
        </span>
        {current?.shared && <span aria-hidden="true">👥</span>}
      </summary>
      <div className="fixed inset-x-3 top-16 z-30 mt-1 max-h-[calc(100dvh-5rem)] space-y-2 overflow-y-auto sm:absolute sm:inset-x-auto sm:top-auto sm:right-0 sm:max-h-[70vh] sm:w-72 rounded-md border border-slate-200 bg-white p-2 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900">
        <ul aria-label={t("views.menuTitle")} className="space-y-1">
          {views.length === 0 && <li className="px-2 py-1 text-slate-500">{t("views.none")}</li>}
          {group(
            t("views.mine"),
            views.filter((v) => !v.shared),
          )}
          {group(
            t("views.tenant"),
            views.filter((v) => v.shared),
          )}
        </ul>
        <div className="space-y-1 border-t border-slate-200 pt-2 dark:border-slate-700">
          {form ? (
            <form onSubmit={save} aria-labelledby={`${formId}-title`} className="space-y-2 px-2">
              <p id={`${formId}-title`} className="font-medium">
                {t("views.saveAs")}
              </p>
              <label className="block space-y-1">
                <span className="text-xs text-slate-600 dark:text-slate-300">{t("views.name")}</span>
                <input
                  data-testid="view-name"
                  required
                  maxLength={80}
                  value={form.name}
                  onChange={(e) => setForm({ ...form, name: e.target.value })}
                  className="w-full rounded border border-slate-300 px-2 py-1 dark:border-slate-700 dark:bg-slate-950"
                />
              </label>
              {canShare && (
                <label className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    data-testid="view-share"
                    checked={form.shared}
                    onChange={(e) => setForm({ ...form, shared: e.target.checked })}
                  />
                  {t("views.share")}
                </label>
              )}
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  data-testid="view-make-default"
                  checked={form.isDefault}
                  onChange={(e) => setForm({ ...form, isDefault: e.target.checked })}
                />
                {t("views.makeDefault")}
              </label>
              <div className="flex gap-2">
                <button type="submit" data-testid="view-save" disabled={busy} className={props.className}>
                  {t("views.save")}
                </button>
                <button type="button" onClick={() => setForm(null)} className={props.className}>
                  {t("views.cancel")}
                </button>
              </div>
            </form>
          ) : (
            <button
              type="button"
              data-testid="view-save-as"
              onClick={() => {
                setNote(null);
                setForm({ name: "", shared: false, isDefault: false });
              }}
              className={ITEM}
            >
              {t("views.saveAs")}
            </button>
          )}
          {current && editable(current, canShare) && !form && (
            <>
              <button
                type="button"
                data-testid="view-update"
                disabled={busy}
                onClick={() => patch({ state: currentState() }, "views.updated")}
                className={ITEM}
              >
                {t("views.update")}
              </button>
              <button
                type="button"
                data-testid="view-set-default"
                disabled={busy}
                onClick={() =>
                  patch(
                    { isDefault: !current.isDefault },
                    current.isDefault ? "views.updated" : "views.defaultSet",
                  )
                }
                className={ITEM}
              >
                {t(current.isDefault ? "views.unsetDefault" : "views.setDefault")}
              </button>
              {confirmDelete ? (
                <div className="space-y-1 px-2">
                  <p>{t("views.deleteConfirm", { name: current.name })}</p>
                  <div className="flex gap-2">
                    <button
                      type="button"
                      data-testid="view-delete-confirm"
                      disabled={busy}
                      onClick={() =>
                        void run(async () => {
                          await sendJson("DELETE", `/api/views/${current.id}`);
                          setCurrentId(null);
                          setConfirmDelete(false);
                          return t("views.deleted", { name: current.name });
                        })
                      }
                      className={`${props.className} text-red-700 dark:text-red-300`}
                    >
                      {t("views.delete")}
                    </button>
                    <button type="button" onClick={() => setConfirmDelete(false)} className={props.className}>
                      {t("views.cancel")}
                    </button>
                  </div>
                </div>
              ) : (
                <button
                  type="button"
                  data-testid="view-delete"
                  onClick={() => setConfirmDelete(true)}
                  className={`${ITEM} text-red-700 dark:text-red-300`}
                >
                  {t("views.delete")}
                </button>
              )}
            </>
          )}
        </div>
        {note && (
          <p
            role={note.error ? "alert" : "status"}
            data-testid="views-note"
            className={`px-2 text-xs ${note.error ? "text-red-700 dark:text-red-300" : "text-slate-600 dark:text-slate-300"}`}
          >
            {note.text}
          </p>
        )}
      </div>
    </details>
  );
}

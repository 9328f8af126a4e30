import "server-only";
import { z } from "zod";
import { savedViewInput, savedViewPatch, savedViewState, viewsQuery } from "@/features/saved-views/contracts";
import { AT } from "../examples";
import { answer, json, noContent, type Operation } from "../registry";

const TAG = "Saved views";
const VIEW = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a41";
const LIST = "app/api/views/route.ts";
const ONE = "app/api/views/[id]/route.ts";

const viewView = z.object({
  id: z.uuid(),
  page: z.string().describe("the schema page's key (agent-turns, agent-audit, agent-runs…)"),
  name: z.string(),
  shared: z.boolean().describe("shared with the whole tenant by one of its admins"),
  isDefault: z.boolean().describe("the caller's default (a private view) or the tenant's (a shared one)"),
  state: savedViewState,
  mine: z.boolean().describe("the caller made it"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const stateExample = {
  filters: { feedback: "down", "startedAt.from": "2026-03-01T00:00:00.000Z" },
  segment: "failed",
  sort: { field: "cost", dir: "desc" as const },
  columns: ["startedAt", "caller", "status", "cost", "feedback"],
  hidden: ["tools"],
  pinned: ["startedAt"],
};
const viewExample = {
  id: VIEW,
  page: "agent-turns",
  name: "Thumbs down this month",
  shared: true,
  isDefault: false,
  state: stateExample,
  mine: true,
  createdAt: AT,
  updatedAt: AT,
};
const viewAnswer = z.object({ view: viewView });
const idPath = z.object({ id: z.uuid().describe("the view's id") });
const PAGE_RULES =
  "404 for an unknown page, 403 for a page the caller's role does not open (as the page's own data)";
const STATE_RULES =
  "the state names a filter, column, sort field or segment the page does not have (the fields name it, e.g. " +
  "`state.filters.colour`), a name longer than 80 characters, or a state over 16 KB";

export const viewOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/views",
    route: LIST,
    operationId: "listSavedViews",
    tag: TAG,
    summary: "Saved views of a page",
    description:
      "The caller's own views of the page and the views the tenant's admins shared, shared first, by name; " +
      "`defaultId` is the view the page opens with: the caller's own default, else the tenant's shared default.",
    guard: "user",
    tenant: true,
    params: { query: viewsQuery },
    answers: {
      200: answer("The views.", z.object({ views: z.array(viewView), defaultId: z.uuid().nullable() }), {
        views: [viewExample],
        defaultId: null,
      }),
    },
    errorDialect: "app",
    errors: { 403: PAGE_RULES, 404: PAGE_RULES },
  },
  {
    method: "POST",
    path: "/api/views",
    route: LIST,
    operationId: "createSavedView",
    tag: TAG,
    summary: "Save a view",
    description:
      "Saves the page's filters, segment, sort and columns (order, hidden, pinned) under a name. `shared` shares it " +
      "with the tenant and `isDefault` makes it the default (the caller's; for a shared view, the tenant's); " +
      "setting a default clears the previous one. Sharing is for tenant admins, and is logged in the admin changes.",
    guard: "user",
    tenant: true,
    access: "any member for their own views; tenant admins for shared ones",
    body: json(
      savedViewInput,
      { page: "agent-turns", name: "Thumbs down this month", state: stateExample, shared: true },
      "SavedViewInput",
    ),
    answers: { 201: answer("The view.", viewAnswer, { view: viewExample }, "SavedViewAnswer") },
    errorDialect: "app",
    errors: {
      403: `a member shares a view; or ${PAGE_RULES}`,
      404: PAGE_RULES,
      409: "the caller has a view of that name on the page (`name`), or 50 views of it already",
      422: STATE_RULES,
    },
  },
  {
    method: "PATCH",
    path: "/api/views/{id}",
    route: ONE,
    operationId: "updateSavedView",
    tag: TAG,
    summary: "Change a saved view",
    description:
      "Renames it, replaces its state, shares or unshares it, or makes it (or stops it being) a default. A shared " +
      "view's change is logged in the admin changes.",
    guard: "user",
    tenant: true,
    access: "the owner of a private view; tenant admins for shared views",
    params: { path: idPath },
    body: json(savedViewPatch, { isDefault: true }, "SavedViewPatch"),
    answers: { 200: answer("The view.", viewAnswer, { view: { ...viewExample, isDefault: true } }) },
    errorDialect: "app",
    errors: {
      403: "a member changes a shared view, or shares one",
      404: "no such view the caller can see (another tenant's, or another person's private view)",
      409: "the owner has a view of that name on the page (`name`)",
      422: STATE_RULES,
    },
  },
  {
    method: "DELETE",
    path: "/api/views/{id}",
    route: ONE,
    operationId: "deleteSavedView",
    tag: TAG,
    summary: "Delete a saved view",
    description: "The same rules as changing it; a shared view's deletion is logged.",
    guard: "user",
    tenant: true,
    access: "the owner of a private view; tenant admins for shared views",
    params: { path: idPath },
    answers: { 204: noContent("Deleted.") },
    errorDialect: "app",
    errors: {
      403: "a member deletes a shared view",
      404: "no such view the caller can see (another tenant's, or another person's private view)",
    },
  },
];

import "server-only";
import { z } from "zod";
import {
  appendItemsInput,
  createDatasetInput,
  createRunInput,
  fromTurnInput,
} from "@/features/evals/contracts";
import { AT, ID } from "../examples";
import { answer, json, type Operation, raw } from "../registry";
import { datasetSummary, runStatus, runView, uuid } from "../shapes";

const TAG = "Evaluations";
const ACCESS = "tenant admins and prompt editors (403 otherwise)";
const V1 = "app/v1/[...path]/route.ts";
const V1_EVALS = "features/evals/server/v1.ts";

const datasetId = z.object({ id: z.string().describe("a dataset id") });
const runId = z.object({ id: z.string().describe("a run id") });
const itemsQuery = z.object({
  items: z.enum(["0", "1"]).optional().describe("`0` leaves every item's results out (a progress poll)"),
});

const dataset = {
  id: ID.dataset,
  name: "triage-golden",
  description: "Tickets with their right queue",
  items: 40,
  scorers: [{ type: "exact" }],
  createdAt: AT,
  updatedAt: AT,
  archived: false,
};
const run = {
  id: ID.run,
  name: "fast vs smart",
  datasetId: ID.dataset,
  datasetName: "triage-golden",
  status: "running" as const,
  progress: { done: 12, total: 80, passed: 10, cost: "0.0312", etaSeconds: 40 },
  targets: [{ index: 0, model: "fast", done: 6, passed: 5 }],
  concurrency: 4,
  createdAt: AT,
  items: [],
};
const runInput = {
  datasetId: ID.dataset,
  name: "fast vs smart",
  targets: [{ model: "fast" }, { model: "smart", prompt: { name: "support/triage", label: "staging" } }],
  scorers: [{ type: "exact" as const }],
  concurrency: 4,
};
const created = answer(
  "The run, queued; poll it for progress.",
  z.object({ id: uuid, total: z.number().int() }),
  {
    id: ID.run,
    total: 80,
  },
);

export const evalOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/evals/datasets",
    route: "app/api/evals/datasets/route.ts",
    operationId: "listDatasets",
    tag: TAG,
    summary: "The tenant's evaluation datasets",
    guard: "user",
    tenant: true,
    access: ACCESS,
    answers: {
      200: answer("The datasets.", z.object({ datasets: z.array(datasetSummary) }), { datasets: [dataset] }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/evals/datasets",
    route: "app/api/evals/datasets/route.ts",
    operationId: "createDataset",
    tag: TAG,
    summary: "Create a dataset",
    guard: "user",
    tenant: true,
    access: ACCESS,
    body: json(
      createDatasetInput,
      {
        name: "triage-golden",
        description: "Tickets with their right queue",
        items: [
          {
            input: { messages: [{ role: "user", content: "My card was charged twice" }] },
            expected: "billing",
          },
        ],
        scorers: [{ type: "exact" }],
      },
      "CreateDatasetInput",
    ),
    answers: { 201: answer("The dataset.", z.looseObject({ id: uuid }), { id: ID.dataset }) },
    errorDialect: "app",
    errors: { 409: "a dataset of this name exists" },
  },
  {
    method: "GET",
    path: "/api/evals/datasets/{id}",
    route: "app/api/evals/datasets/[id]/route.ts",
    operationId: "getDataset",
    tag: TAG,
    summary: "A dataset with its items and runs",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: datasetId },
    answers: {
      200: answer("The dataset.", z.object({ dataset: datasetSummary.extend({ items: z.unknown() }) }), {
        dataset: { ...dataset, items: [] },
      }),
    },
    errorDialect: "app",
    errors: { 404: "no such dataset in this tenant" },
  },
  {
    method: "DELETE",
    path: "/api/evals/datasets/{id}",
    route: "app/api/evals/datasets/[id]/route.ts",
    operationId: "archiveDataset",
    tag: TAG,
    summary: "Archive a dataset",
    description: "Its runs stay readable; it takes no new items or runs.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: datasetId },
    answers: { 200: answer("Archived.", z.object({ archived: z.literal(true) }), { archived: true }) },
    errorDialect: "app",
    errors: { 404: "no such dataset in this tenant" },
  },
  {
    method: "POST",
    path: "/api/evals/datasets/{id}/items",
    route: "app/api/evals/datasets/[id]/items/route.ts",
    operationId: "appendDatasetItems",
    tag: TAG,
    summary: "Append items",
    description:
      'As `{items: [...]}`, or JSONL as `{jsonl: "<one item a line>"}`. A bad line is named ("line 3: input: …") and then nothing is added.',
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: datasetId },
    body: json(
      appendItemsInput,
      {
        jsonl:
          '{"input":{"messages":[{"role":"user","content":"Where is my parcel?"}]},"expected":"shipping"}',
      },
      "AppendItemsInput",
    ),
    answers: {
      201: answer("The items added.", z.object({ added: z.number().int(), ids: z.array(uuid) }), {
        added: 1,
        ids: [ID.message],
      }),
    },
    errorDialect: "app",
    errors: { 404: "no such dataset in this tenant", 409: "the dataset is archived" },
  },
  {
    method: "POST",
    path: "/api/evals/datasets/{id}/from-turn",
    route: "app/api/evals/datasets/[id]/from-turn/route.ts",
    operationId: "addTurnToDataset",
    tag: TAG,
    summary: "Add a ledger turn to a dataset",
    description:
      "A drawer turn's conversation up to it (its answer expected), or an API call's request messages. Tenant admins may use any turn of the tenant; prompt editors only their own.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: datasetId },
    body: json(fromTurnInput, { turnId: ID.turn }, "FromTurnInput"),
    answers: {
      201: answer("The item added.", z.looseObject({ id: uuid, input: z.unknown(), expected: z.unknown() }), {
        id: ID.message,
        input: { messages: [{ role: "user", content: "How long do refunds take?" }] },
        expected: "5 working days.",
      }),
    },
    errorDialect: "app",
    errors: { 404: "no such dataset or turn (or not yours)" },
  },
  {
    method: "GET",
    path: "/api/evals/runs",
    route: "app/api/evals/runs/route.ts",
    operationId: "listRuns",
    tag: TAG,
    summary: "The tenant's runs",
    description: "Newest first.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { query: z.object({ datasetId: z.string().optional().describe("one dataset's runs only") }) },
    answers: {
      200: answer(
        "The runs (without their items).",
        z.object({ runs: z.array(z.looseObject({ id: uuid, status: runStatus })) }),
        { runs: [{ id: ID.run, status: "done", datasetName: "triage-golden" }] },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/evals/runs",
    route: "app/api/evals/runs/route.ts",
    operationId: "startRun",
    tag: TAG,
    summary: "Start a run",
    description:
      "Dataset × targets (an alias, optionally a prompt version), scored; executed as durable jobs through the same pipeline (source eval).",
    guard: "user",
    tenant: true,
    access: ACCESS,
    body: json(createRunInput, runInput, "CreateRunInput"),
    answers: { 201: created },
    errorDialect: "app",
    errors: { 404: "no such dataset, alias or prompt", 409: "the dataset is archived or empty" },
  },
  {
    method: "GET",
    path: "/api/evals/runs/{id}",
    route: "app/api/evals/runs/[id]/route.ts",
    operationId: "getRun",
    tag: TAG,
    summary: "A run",
    description: "Status, progress (with the time left), each target's summary and every item's results.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: runId, query: itemsQuery },
    answers: { 200: answer("The run.", runView, run, "EvalRun") },
    errorDialect: "app",
    errors: { 404: "no such run in this tenant" },
  },
  {
    method: "POST",
    path: "/api/evals/runs/{id}/cancel",
    route: "app/api/evals/runs/[id]/cancel/route.ts",
    operationId: "cancelRun",
    tag: TAG,
    summary: "Cancel a run",
    description: "Nothing more is claimed; pending items are cancelled, finished ones kept.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: runId },
    answers: {
      200: answer(
        "Whether it was cancelled now, and its status.",
        z.object({ cancelled: z.boolean(), status: runStatus }),
        {
          cancelled: true,
          status: "cancelled",
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such run in this tenant" },
  },
  {
    method: "GET",
    path: "/api/evals/runs/{id}/export",
    route: "app/api/evals/runs/[id]/export/route.ts",
    operationId: "exportRun",
    tag: TAG,
    summary: "A run's items as CSV",
    description: "One line per item and target, exact costs.",
    guard: "user",
    tenant: true,
    access: ACCESS,
    params: { path: runId },
    answers: {
      200: {
        ...raw("The CSV.", "text/csv", "item_id,target,model,status,passed,score,cost,latency_ms\n…"),
        headers: { "content-disposition": 'attachment; filename="eval-run-<id>.csv"' },
      },
    },
    errorDialect: "app",
    errors: { 404: "no such run in this tenant" },
  },
  // The CI gate's endpoints (`npm run eval`), with a tenant API key; the app's error envelope.
  {
    method: "GET",
    path: "/v1/evals/datasets/{name}",
    route: V1,
    handledIn: V1_EVALS,
    operationId: "v1GetDataset",
    tag: TAG,
    summary: "A dataset by name (API key)",
    guard: "api-key",
    params: { path: z.object({ name: z.string().describe("the dataset's name") }) },
    answers: {
      200: answer("The dataset, without its items.", z.object({ dataset: datasetSummary }), { dataset }),
    },
    errorDialect: "app",
    errors: { 404: "no such dataset in the key's tenant" },
  },
  {
    method: "POST",
    path: "/v1/evals/runs",
    route: V1,
    handledIn: V1_EVALS,
    operationId: "v1StartRun",
    tag: TAG,
    summary: "Start a run (API key)",
    description: "As POST /api/evals/runs; metered against the key (its ledger rows carry it).",
    guard: "api-key",
    body: json(createRunInput, runInput, "CreateRunInput"),
    answers: { 201: created },
    errorDialect: "app",
    errors: { 404: "no such dataset, alias or prompt" },
  },
  {
    method: "GET",
    path: "/v1/evals/runs/{id}",
    route: V1,
    handledIn: V1_EVALS,
    operationId: "v1GetRun",
    tag: TAG,
    summary: "A run (API key)",
    guard: "api-key",
    params: { path: runId, query: itemsQuery },
    answers: { 200: answer("The run.", runView, run, "EvalRun") },
    errorDialect: "app",
    errors: { 404: "no such run in the key's tenant" },
  },
  {
    method: "POST",
    path: "/v1/evals/runs/{id}/cancel",
    route: V1,
    handledIn: V1_EVALS,
    operationId: "v1CancelRun",
    tag: TAG,
    summary: "Cancel a run (API key)",
    guard: "api-key",
    params: { path: runId },
    answers: {
      200: answer("Whether it was cancelled now.", z.object({ cancelled: z.boolean() }), { cancelled: true }),
    },
    errorDialect: "app",
    errors: { 404: "no such run in the key's tenant" },
  },
];

import "server-only";
import { z } from "zod";
import {
  confirmCallInput,
  createConversationInput,
  FEEDBACK_VALUES,
  listConversationsQuery,
  renameConversationInput,
  sendTurnInput,
  turnFeedbackInput,
} from "@/features/drawer/contracts";
import { AT, ID } from "../examples";
import { answer, json, noContent, type Operation, raw } from "../registry";
import { conversationMessage, conversationSummary, ledgerTurn, modelInfo, uuid } from "../shapes";

/** The ledger row as GET /api/agent/turns/{id} answers it: its skills as two parallel arrays. */
const ledgerRowTurn = ledgerTurn.extend({
  skills: z.array(z.string()).describe("the skills the turn loaded (skill_load), in the order first loaded"),
  skillVersions: z.array(z.number().int()).describe("the version of each, at the same place as in skills"),
});

/** The ledger row as the replay answers it: its skills with their versions side by side. */
const replayTurn = ledgerTurn.extend({
  skills: z
    .array(z.object({ name: z.string(), version: z.number().int() }))
    .describe("the skills the turn loaded, in the order first loaded; empty when none"),
});

/** The signed-in user's own vote on a turn's answer. */
const turnFeedback = z
  .object({
    value: z.enum(FEEDBACK_VALUES).describe("thumbs up or down"),
    comment: z.string().nullable().describe("the optional comment, secrets masked; null when none"),
    updatedAt: z.string().describe("when the vote was last put or changed (ISO 8601)"),
  })
  .describe("stored as the boolean score `thumbs` (true = up), source human, one per person and turn");

const TAG = "Drawer";

const conversation = {
  id: ID.conversation,
  title: "Refund policy",
  model: "smart",
  createdAt: AT,
  updatedAt: AT,
};
const conversationId = z.object({ id: z.uuid() });
const turnId = z.object({ id: z.string().describe("the turn's id (from the `turn` event)") });

const TURN_EVENTS = [
  'event: turn\ndata: {"type":"turn","turnId":"0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a05","conversationId":"0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a04"}',
  'event: text\ndata: {"type":"text","delta":"Refunds take "}',
  'event: text\ndata: {"type":"text","delta":"5 working days."}',
  'event: done\ndata: {"type":"done","status":"success","usage":{"inputTokens":812,"outputTokens":9},"cost":"0.0024","latencyMs":1840}',
].join("\n\n");

export const drawerOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/agent/conversations",
    route: "app/api/agent/conversations/route.ts",
    operationId: "listConversations",
    tag: TAG,
    summary: "Your conversations",
    description: "In the active tenant, newest first. Empty query values count as absent.",
    guard: "user",
    tenant: true,
    params: { query: listConversationsQuery },
    answers: {
      200: answer("A page of conversations.", z.object({ conversations: z.array(conversationSummary) }), {
        conversations: [conversation],
      }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/agent/conversations",
    route: "app/api/agent/conversations/route.ts",
    operationId: "createConversation",
    tag: TAG,
    summary: "Start an empty conversation",
    description: "A turn sent without `conversationId` makes one too.",
    guard: "user",
    tenant: true,
    body: json(
      createConversationInput,
      { title: "Refund policy", model: "smart" },
      "CreateConversationInput",
    ),
    answers: {
      201: answer("The conversation.", z.object({ conversation: conversationSummary }), { conversation }),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/agent/conversations/{id}",
    route: "app/api/agent/conversations/[id]/route.ts",
    operationId: "getConversation",
    tag: TAG,
    summary: "A conversation with its messages",
    description:
      "With what each message shows (context chips, attachments, cards). Anyone else's id answers 404.",
    guard: "user",
    tenant: true,
    params: { path: conversationId },
    answers: {
      200: answer(
        "The conversation and its messages, oldest first (superseded ones left out).",
        z.object({ conversation: z.looseObject({ id: uuid }), messages: z.array(conversationMessage) }),
        {
          conversation,
          messages: [
            {
              id: ID.message,
              role: "user",
              content: "How long do refunds take?",
              turnId: ID.turn,
              createdAt: AT,
            },
          ],
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/agent/conversations/{id}/pending",
    route: "app/api/agent/conversations/[id]/pending/route.ts",
    operationId: "getConversationPending",
    tag: TAG,
    summary: "What waits for a conversation's next turn",
    description:
      "The notices queued for the next turn (a background task's result; results of one type stack into one, whose `id` changes when it does) and how many of the conversation's background tasks are still queued or running. " +
      "The drawer polls it while tasks run, so a result shows as it arrives; the next turn takes the notices (its stream sends each as a `note` event). Anyone else's id answers 404.",
    guard: "user",
    tenant: true,
    params: { path: conversationId },
    answers: {
      200: answer(
        "The pending notices, oldest first, and the tasks still going.",
        z.object({
          notices: z.array(
            z.object({ id: z.number().int(), type: z.string(), body: z.string(), createdAt: z.string() }),
          ),
          tasks: z.number().int().min(0),
        }),
        {
          notices: [
            {
              id: 41,
              type: "task_result",
              body: "<TERMINAL_TASK_RESULT>\n<task_id>0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a09</task_id>\n<status>completed</status>\n<description>sum the invoices</description>\n<output>=&gt; 1250</output>\n</TERMINAL_TASK_RESULT>",
              createdAt: AT,
            },
          ],
          tasks: 0,
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "PATCH",
    path: "/api/agent/conversations/{id}",
    route: "app/api/agent/conversations/[id]/route.ts",
    operationId: "renameConversation",
    tag: TAG,
    summary: "Rename a conversation",
    guard: "user",
    tenant: true,
    params: { path: conversationId },
    body: json(renameConversationInput, { title: "Refunds" }, "RenameConversationInput"),
    answers: {
      200: answer(
        "The conversation.",
        z.object({ conversation: z.looseObject({ id: uuid, title: z.string() }) }),
        {
          conversation: { id: ID.conversation, title: "Refunds" },
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "DELETE",
    path: "/api/agent/conversations/{id}",
    route: "app/api/agent/conversations/[id]/route.ts",
    operationId: "deleteConversation",
    tag: TAG,
    summary: "Delete a conversation",
    description: "With its messages and files; its ledger rows and audit trail stay.",
    guard: "user",
    tenant: true,
    params: { path: conversationId },
    answers: { 204: noContent("Deleted.") },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/agent/files",
    route: "app/api/agent/files/route.ts",
    operationId: "uploadFile",
    tag: TAG,
    summary: "Upload a file for a message",
    description:
      "multipart/form-data with the file in the field `file`. Images (PNG, JPEG, WebP, GIF) up to 5 MB; text, Markdown, CSV, JSON and PDF up to 10 MB. " +
      "Send the id in a turn's `attachments`.",
    guard: "user",
    tenant: true,
    body: {
      contentType: "multipart/form-data",
      schema: z.object({ file: z.string().meta({ format: "binary" }).describe("the file") }),
    },
    answers: {
      201: answer(
        "The stored file.",
        z.object({ id: uuid, name: z.string(), type: z.string(), size: z.number().int() }),
        { id: ID.file, name: "invoice.pdf", type: "application/pdf", size: 48213 },
      ),
    },
    errorDialect: "app",
    errors: { 409: "the tenant's file quota is full" },
  },
  {
    method: "GET",
    path: "/api/agent/files/{id}",
    route: "app/api/agent/files/[id]/route.ts",
    operationId: "getFile",
    tag: TAG,
    summary: "Download an uploaded file",
    description:
      "The uploader's only: images inline under their type, every other file as an attachment; never sniffed.",
    guard: "user",
    tenant: true,
    params: { path: z.object({ id: z.string().describe("a file id") }) },
    answers: { 200: raw("The file's bytes, under its media type.", "application/octet-stream") },
    errorDialect: "app",
    errors: { 404: "not your file" },
  },
  {
    method: "DELETE",
    path: "/api/agent/files/{id}",
    route: "app/api/agent/files/[id]/route.ts",
    operationId: "deleteFile",
    tag: TAG,
    summary: "Delete an uploaded file",
    description: "A chip removed before sending; frees its share of the tenant's quota.",
    guard: "user",
    tenant: true,
    params: { path: z.object({ id: z.string().describe("a file id") }) },
    answers: { 204: noContent("Deleted.") },
    errorDialect: "app",
    errors: { 404: "not your file" },
  },
  {
    method: "GET",
    path: "/api/agent/models",
    route: "app/api/agent/models/route.ts",
    operationId: "listDrawerModels",
    tag: TAG,
    summary: "The model aliases you can pick",
    description: "With the default alias and the date of the price catalog calls are charged at.",
    guard: "user",
    answers: {
      200: answer(
        "The aliases.",
        z.object({
          models: z.array(modelInfo),
          defaultModel: z.string(),
          prices: z.record(z.string(), z.unknown()),
        }),
        {
          models: [
            {
              alias: "smart",
              label: "Smart",
              provider: "openai",
              providerType: "openai",
              supportsTools: true,
              supportsVision: true,
              offline: false,
              isDefault: true,
            },
          ],
          defaultModel: "smart",
          prices: { asOf: "2026-10-15", overrides: 0 },
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/agent/turns",
    route: "app/api/agent/turns/route.ts",
    operationId: "sendTurn",
    tag: TAG,
    summary: "Send a message; the turn streams back",
    description:
      "Server-sent events over the POST's answer: `turn` (ids), `text` (deltas), `tool_call`, `tool_result`, `notice`, `guardrail`, `message`, `note` (a queued background result the turn handed the model, before the user's message), `error`, `done`. " +
      'Closing the connection, or POST /api/agent/turns/{id}/stop, is Stop. `replace: "last"` (edit) and `regenerate: true` replace the last turn, whose messages are kept, marked superseded. ' +
      "A failure after the stream started is an `error` event, never a quiet end.",
    guard: "user",
    tenant: true,
    body: json(
      sendTurnInput,
      {
        conversationId: ID.conversation,
        message: "How long do refunds take?",
        model: "smart",
        enableTools: true,
      },
      "SendTurnInput",
    ),
    answers: {
      200: {
        ...raw("The turn as it happens.", "text/event-stream", TURN_EVENTS),
        headers: { "x-conversation-id": "the conversation the turn is in (made for it when none was given)" },
      },
    },
    errorDialect: "app",
    errors: { 404: "no such conversation of yours", 409: "nothing to edit or regenerate" },
  },
  {
    method: "GET",
    path: "/api/agent/turns/{id}",
    route: "app/api/agent/turns/[id]/route.ts",
    operationId: "getTurn",
    tag: TAG,
    summary: "A turn's ledger row",
    description:
      "For its own user or a tenant admin; anything else answers 404. `feedback` is the signed-in user's own vote on the answer (null when they have none).",
    guard: "user",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    answers: {
      200: answer("The ledger row.", z.object({ turn: ledgerRowTurn, feedback: turnFeedback.nullable() }), {
        feedback: { value: "up", comment: null, updatedAt: AT },
        turn: {
          id: ID.turn,
          tenantId: ID.tenant,
          userId: ID.user,
          conversationId: ID.conversation,
          source: "drawer",
          apiKeyId: null,
          requestedModel: "smart",
          servedProvider: "openai",
          servedModel: "gpt-4.1",
          inputTokens: 812,
          outputTokens: 9,
          cost: "0.0024000000",
          costStatus: "priced",
          status: "success",
          startedAt: AT,
          latencyMs: 1840,
          skills: ["refund-policy"],
          skillVersions: [2],
        },
      }),
    },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/agent/turns/{id}/feedback",
    route: "app/api/agent/turns/[id]/feedback/route.ts",
    operationId: "putTurnFeedback",
    tag: TAG,
    summary: "Vote on an answer of yours",
    description:
      "Thumbs up or down on one of your own turns, with an optional comment; sending it again changes it (one vote per person and turn). " +
      "Without `comment` the stored comment stays; an empty one removes it. Stored as the boolean score `thumbs` (source human), so the ledger's feedback shows it. " +
      "Another user's turn, another tenant's, and a missing one answer 404 alike.",
    guard: "user",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    body: json(
      turnFeedbackInput,
      { value: "down", comment: "It named the wrong refund window." },
      "TurnFeedbackInput",
    ),
    answers: {
      200: answer("Your vote as stored.", z.object({ feedback: turnFeedback }), {
        feedback: { value: "down", comment: "It named the wrong refund window.", updatedAt: AT },
      }),
    },
    errorDialect: "app",
    errors: {
      404: "no turn of yours under this id",
      422: "`value` is not up or down, or the comment is too long",
    },
  },
  {
    method: "DELETE",
    path: "/api/agent/turns/{id}/feedback",
    route: "app/api/agent/turns/[id]/feedback/route.ts",
    operationId: "deleteTurnFeedback",
    tag: TAG,
    summary: "Take your vote on an answer back",
    description: "Removes your vote and its comment; taking back a vote that is not there is not an error.",
    guard: "user",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    answers: {
      200: answer("No vote now.", z.object({ feedback: z.null() }), { feedback: null }),
    },
    errorDialect: "app",
    errors: { 404: "no turn of yours under this id" },
  },
  {
    method: "POST",
    path: "/api/agent/turns/{id}/stop",
    route: "app/api/agent/turns/[id]/stop/route.ts",
    operationId: "stopTurn",
    tag: TAG,
    summary: "Stop your running turn",
    description:
      "Stops the turn on whichever instance runs it (no sticky sessions needed). 202 when it was stopped; 409 when it is not running anywhere (it ended, or is not yours). When the turn runs on another instance, the answer waits for it (about a second at most).",
    guard: "user",
    tenant: true,
    params: { path: turnId },
    answers: {
      202: answer(
        "Stopped: the stream ends with `done` (status stopped).",
        z.object({ stopped: z.literal(true) }),
        {
          stopped: true,
        },
      ),
    },
    errorDialect: "app",
    errors: { 409: "`{stopped: false}`: not running anywhere" },
  },
  {
    method: "POST",
    path: "/api/agent/turns/{id}/confirm",
    route: "app/api/agent/turns/[id]/confirm/route.ts",
    operationId: "confirmToolCall",
    tag: TAG,
    summary: "Approve or deny a tool call that waits for you",
    description:
      "The decision is applied once, on whichever instance runs the turn (no sticky sessions needed); when that is another instance, the answer waits for it (about a second at most).",
    guard: "user",
    tenant: true,
    params: { path: turnId },
    body: json(confirmCallInput, { callId: "call_8f2a", approve: true }, "ConfirmCallInput"),
    answers: {
      200: answer(
        "The decision taken.",
        z.object({ callId: z.string(), decision: z.enum(["approve", "deny"]) }),
        { callId: "call_8f2a", decision: "approve" },
      ),
    },
    errorDialect: "app",
    errors: {
      404: "no call of yours waits under this id (the turn ended, or the call is not yours)",
      409: "already decided, timed out, or cancelled by Stop",
    },
  },
  {
    method: "GET",
    path: "/api/agent/turns/{id}/replay",
    route: "app/api/agent/turns/[id]/replay/route.ts",
    operationId: "replayTurn",
    tag: TAG,
    summary: "A turn's replay",
    description:
      "The ledger row, its audit events in seq order, those events checked against their tenant-month audit chains (`chain`: intact, broken at an event's seq with the reason, or unchained when written before hashing), and the turns before and after it.",
    guard: "user",
    access:
      "whoever may open the audit page: the tenant's admins (their tenant only) and the super admin (403 otherwise)",
    params: { path: z.object({ id: z.uuid() }) },
    answers: {
      200: answer(
        "The replay.",
        z.object({
          turn: replayTurn,
          events: z.array(
            z.looseObject({
              seq: z.number().int(),
              type: z.string(),
              createdAt: z.string(),
              payload: z.record(z.string(), z.unknown()),
            }),
          ),
          chain: z.discriminatedUnion("state", [
            z.object({ state: z.literal("intact"), checked: z.number().int() }),
            z.object({
              state: z.literal("broken"),
              reason: z.enum(["content", "prev"]),
              seq: z.number().int(),
            }),
            z.object({ state: z.literal("unchained") }),
          ]),
          prev: uuid.nullable(),
          next: uuid.nullable(),
        }),
        {
          turn: {
            id: ID.turn,
            tenantId: ID.tenant,
            userId: ID.user,
            conversationId: ID.conversation,
            source: "drawer",
            apiKeyId: null,
            requestedModel: "smart",
            servedProvider: "openai",
            servedModel: "gpt-4.1",
            inputTokens: 812,
            outputTokens: 9,
            cost: "0.0024000000",
            costStatus: "priced",
            status: "success",
            startedAt: AT,
            latencyMs: 1840,
            skills: [{ name: "refund-policy", version: 2 }],
          },
          events: [
            { seq: 1, type: "request", createdAt: AT, payload: { message: "How long do refunds take?" } },
          ],
          chain: { state: "intact", checked: 1 },
          prev: null,
          next: null,
        },
      ),
    },
    errorDialect: "app",
    errors: {
      404: "no such turn in this tenant",
      410: "the turn's month is in the ledger archive: the message names where, and the command that restores it",
    },
  },
];

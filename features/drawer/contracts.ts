// What the drawer's routes take (turns, conversations, confirmations), shared by the routes, the browser and the
// OpenAPI document. Browser-safe: zod only.
import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { SCORE_COMMENT_MAX } from "@/features/scores/contracts";
import { z } from "@/lib/core/schema/zod";

/** The longest message a turn takes, in characters (JavaScript string length, as the composer counts). */
export const MESSAGE_MAX_CHARS = 32_000;

/** What a page can offer the assistant as context: the object's kind, loaded on the server with the user's rights. */
export const CONTEXT_TYPES = ["turn", "audit_turn", "prompt_version", "eval_item", "order"] as const;
export type ContextType = (typeof CONTEXT_TYPES)[number];
/** At most this many context items and attachments on one message. */
export const MAX_CONTEXT_ITEMS = 5;
export const MAX_ATTACHMENTS = 5;

export const contextItemRef = z.object({
  type: z.enum(CONTEXT_TYPES, `type must be one of: ${CONTEXT_TYPES.join(", ")}`),
  id: z.string().trim().min(1, "a context item needs an id").max(200, "a context item's id is too long"),
});
export type ContextItemRef = z.infer<typeof contextItemRef>;

/**
 * POST /api/agent/turns. `replace: "last"` sends `message` in place of the conversation's last user message
 * (edit and resend); `regenerate: true` asks again for the last user message. Both keep the replaced messages
 * stored, marked superseded, and each is a normal governed turn.
 */
export const sendTurnInput = z
  .object({
    conversationId: z.uuid("conversationId must be a conversation id").optional(),
    message: z
      .string()
      .trim()
      .min(1, "the message must not be empty")
      .max(MESSAGE_MAX_CHARS, "the message is too long (32,000 characters at most)")
      .optional(),
    model: z.string().max(100).optional(),
    enableTools: z.boolean().optional(),
    replace: z.literal("last", 'replace takes "last" (the last user message)').optional(),
    regenerate: z.boolean().optional(),
    /** Files uploaded with POST /api/agent/files, by id. */
    attachments: z
      .array(z.uuid("attachments take file ids from POST /api/agent/files"))
      .max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} attachments on one message`)
      .optional(),
    /** Objects the user is looking at; the server loads each with the user's own permissions. */
    context: z
      .array(contextItemRef)
      .max(MAX_CONTEXT_ITEMS, `at most ${MAX_CONTEXT_ITEMS} context items on one message`)
      .optional(),
  })
  .superRefine((input, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (input.regenerate && input.replace) issue("regenerate", "send either regenerate or replace, not both");
    if ((input.regenerate || input.replace) && !input.conversationId)
      issue("conversationId", "editing or regenerating needs the conversation's id");
    if (input.regenerate && (input.attachments?.length || input.context?.length))
      issue(
        "regenerate",
        "regenerate resends the last message as it was; send no attachments or context with it",
      );
    if (input.regenerate && input.message !== undefined)
      issue("message", "regenerate asks again for the last message; send no message with it");
    if (!input.regenerate && input.message === undefined) issue("message", "the message must not be empty");
  });

export type SendTurnInput = z.infer<typeof sendTurnInput>;

/** POST /api/agent/files answers with the stored file's id, to send in a turn's `attachments`. */
export type UploadedFile = { id: string; name: string; type: string; size: number };

/** A context chip as the drawer shows it on a message (stored with the message; the label is the server's). */
export type ContextChip = ContextItemRef & { label: string };

/** What a user message carries besides its text, in the stored message's `data` and the `message` history. */
export type MessageInputs = { context?: ContextChip[]; attachments?: UploadedFile[] };

/** POST /api/agent/turns/{turnId}/confirm: the user's Approve (true) or Deny (false) on a call that waits for it. */
export const confirmCallInput = z.object({
  callId: z.string().trim().min(1, "name the tool call (its callId)").max(200, "callId is too long"),
  approve: z.boolean("approve is true (run the call) or false (deny it)"),
});
export type ConfirmCallInput = z.infer<typeof confirmCallInput>;

/** What the confirm route answers: the decision now taken. */
export type ConfirmCallResult = { callId: string; decision: "approve" | "deny" };

/** GET /api/agent/conversations: newest first, `before` an updatedAt to page back from, `q` searching titles and messages. */
export const listConversationsQuery = z.object({
  limit: z.coerce.number("a whole number from 1 to 200").int().min(1).max(200).optional(),
  // Years 1 to 9999: what PostgreSQL's timestamps and ISO strings both hold.
  before: z.coerce
    .date("a time, e.g. 2026-11-01T09:30:00Z")
    .min(new Date("0001-01-01T00:00:00Z"), "a time after the year 1")
    .max(new Date("9999-12-31T23:59:59Z"), "a time before the year 10000")
    .optional(),
  q: z.string().trim().max(200, "search for at most 200 characters").refine(hasNoNul, NO_NUL).optional(),
});

/** POST /api/agent/conversations: an empty conversation (a turn without `conversationId` makes one too). */
export const createConversationInput = z.object({
  title: z.string().trim().max(200).refine(hasNoNul, NO_NUL).optional(),
  model: z.string().max(100).refine(hasNoNul, NO_NUL).optional(),
});

/** PATCH /api/agent/conversations/{id} */
export const renameConversationInput = z.object({
  title: z.string().trim().min(1, "the title must not be empty").max(200).refine(hasNoNul, NO_NUL),
});

/** A vote on an answer in the drawer: thumbs up or down. */
export const FEEDBACK_VALUES = ["up", "down"] as const;
export type FeedbackValue = (typeof FEEDBACK_VALUES)[number];

/**
 * PUT /api/agent/turns/{turnId}/feedback: the user's vote on an answer of theirs, and an optional comment.
 * Sending it again changes it; without `comment` the stored comment stays, and an empty one removes it.
 */
export const turnFeedbackInput = z.strictObject({
  value: z.enum(FEEDBACK_VALUES, 'value is "up" or "down"'),
  comment: z
    .string("comment is text")
    .trim()
    .max(SCORE_COMMENT_MAX, `a comment is at most ${SCORE_COMMENT_MAX.toLocaleString("en-US")} characters`)
    .refine(hasNoNul, NO_NUL)
    .optional(),
});
export type TurnFeedbackInput = z.infer<typeof turnFeedbackInput>;

/** The user's own vote on a turn, as the feedback route and GET /api/agent/turns/{id} answer it. */
export type TurnFeedback = { value: FeedbackValue; comment: string | null; updatedAt: string };

// What the drawer's turn route takes, shared by the route and the browser. Browser-safe: zod only.
import { z } from "@/lib/core/zod";

/** The longest message a turn takes, in characters (JavaScript string length, as the composer counts). */
export const MESSAGE_MAX_CHARS = 32_000;

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
  })
  .superRefine((input, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (input.regenerate && input.replace) issue("regenerate", "send either regenerate or replace, not both");
    if ((input.regenerate || input.replace) && !input.conversationId)
      issue("conversationId", "editing or regenerating needs the conversation's id");
    if (input.regenerate && input.message !== undefined)
      issue("message", "regenerate asks again for the last message; send no message with it");
    if (!input.regenerate && input.message === undefined) issue("message", "the message must not be empty");
  });

export type SendTurnInput = z.infer<typeof sendTurnInput>;

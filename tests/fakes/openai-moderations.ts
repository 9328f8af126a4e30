// The fake OpenAI Moderations route (POST /v1/moderations): one result per input item, flagged when the text
// contains "FLAG_ME" (as violence), with OpenAI's category names, scores and applied input types.
import type { ServerResponse } from "node:http";
import { fakeId, type RecordedRequest, type RenderableReply, sendJson } from "./http";
import { openaiHeaders, sendOpenAIError } from "./openai-wire";

export const MODERATION_DEFAULT_MODEL = "omni-moderation-2024-09-26";

const CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
];

export async function renderModerations(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  const input = req.body.input;
  if (input === undefined || input === null || input === "")
    return sendOpenAIError(res, { status: 400, message: "'input' is a required property" });
  const items = Array.isArray(input) ? input : [input];
  const texts = items.map((item) =>
    typeof item === "string"
      ? item
      : typeof (item as { text?: unknown }).text === "string"
        ? (item as { text: string }).text
        : "",
  );
  const model = ("model" in reply ? reply.model : undefined) ?? MODERATION_DEFAULT_MODEL;
  sendJson(
    res,
    200,
    {
      id: fakeId("modr-"),
      model,
      results: texts.map((text) => {
        const flagged = text.includes("FLAG_ME");
        return {
          flagged,
          categories: Object.fromEntries(CATEGORIES.map((c) => [c, flagged && c === "violence"])),
          category_scores: Object.fromEntries(
            CATEGORIES.map((c) => [c, flagged && c === "violence" ? 0.97 : 0.0001]),
          ),
          category_applied_input_types: Object.fromEntries(CATEGORIES.map((c) => [c, ["text"]])),
        };
      }),
    },
    openaiHeaders(),
  );
}

/** A content block of an MCP tool result (the parts read here). */
type ContentBlock = {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
};

/** What an MCP tools/call answers (current results, and the 2024-10-07 `toolResult` form). */
export type McpCallResult = {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
};

/** An error result of the tool itself (isError), as opposed to a failure to reach it. */
export class McpToolError extends Error {
  override name = "McpToolError";
}

/** A result's content as text: text blocks as they are, others described in one line each. */
export function contentText(content: readonly ContentBlock[] = []): string {
  return content
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text ?? "";
        case "image":
        case "audio":
          return `[${block.type} ${block.mimeType ?? ""}, ${Math.floor(((block.data?.length ?? 0) * 3) / 4)} bytes]`;
        case "resource":
          return (
            block.resource?.text ??
            `[resource ${block.resource?.uri ?? ""} ${block.resource?.mimeType ?? ""}]`.trim()
          );
        case "resource_link":
          return `[resource link ${block.uri ?? ""}${block.name ? ` (${block.name})` : ""}]`;
        default:
          return `[${block.type} content]`;
      }
    })
    .join("\n");
}

/**
 * What the loop returns to the model for an MCP result: the text joined, the structured content kept (alone when
 * the text is only its JSON); an error result throws, so the model reads `{"error": …}`.
 */
export function toolValue(result: McpCallResult): unknown {
  if ("toolResult" in result && result.content === undefined) return result.toolResult;
  const text = contentText(result.content);
  if (result.isError) throw new McpToolError(text.trim() || "the tool reported an error without a message");
  const structured = result.structuredContent;
  if (structured === undefined) return text;
  if (!text.trim() || sameJson(text, structured)) return structured;
  return { text, structuredContent: structured };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

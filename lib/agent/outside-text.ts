import type { StoredMessage } from "@/lib/turns/conversation";
import type { Tool } from "./tool";

/**
 * Where text others control entered what the model reads in this conversation, or null when none did: context
 * items and files' text (stored with their message, so later turns still carry them), results of tools that read
 * outside text (web pages, MCP servers, the governance tools' ledger rows), a tool no longer known (it cannot be
 * vouched for), queued notifications (a background sub-agent's report) and messages tools added (an image loaded
 * from anywhere). The user's own words are not outside.
 */
export function outsideTextSource(
  messages: readonly StoredMessage[],
  tools: ReadonlyMap<string, Tool>,
): string | null {
  for (const m of messages) {
    if (m.kind === "display") continue;
    const blocks = m.data?.contextBlocks;
    if (m.role === "user" && Array.isArray(blocks) && blocks.length) return "context items or files";
    if (m.kind === "notification") return "a background task's report";
    if (m.kind === "tool_message") return `a message added by ${String(m.data?.tool ?? "a tool")}`;
    if (m.role === "tool") {
      const tool = m.name ? tools.get(m.name) : undefined;
      if (!tool || tool.readsOutsideText) return `results of ${m.name ?? "a tool"}`;
    }
  }
  return null;
}

/** Why a call must wait for the user's yes though its tool does not always need it: outside text could leave. */
export type EgressReason = { code: "outside_data"; to: string; message: string };

/** The reason a call of `tool` needs the user's confirmation in a turn whose outside text came from `source`. */
export function egressReason(tool: Tool, args: unknown, source: string | null): EgressReason | null {
  if (!source || !tool.sendsTo) return null;
  const to = tool.sendsTo(args && typeof args === "object" ? (args as Record<string, unknown>) : {});
  if (to === null) return null;
  return {
    code: "outside_data",
    to,
    message: `this turn carries data from outside (${source}); ${tool.name} would send it to ${to}`,
  };
}

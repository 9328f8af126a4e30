import "server-only";
import type { ConversationMessage } from "@/lib/governance/conversations";

/**
 * A conversation's messages as the drawer gets them: everything shown on a message (context chips, attachments,
 * cards) stays in `data`; the context blocks, written for the model, stay on the server.
 */
export function browserMessages(messages: ConversationMessage[]): ConversationMessage[] {
  return messages.map((m) => {
    if (!m.data || !("contextBlocks" in m.data)) return m;
    const { contextBlocks: _blocks, ...data } = m.data;
    const { data: _data, ...rest } = m;
    return (Object.keys(data).length ? { ...rest, data } : rest) as ConversationMessage;
  });
}

import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { agentFiles } from "@/db/schema";
import { isUuid } from "@/lib/core/schema/uuid";

/** Whose file, in which conversation: a tool reads only what the turn's user attached to the turn's conversation. */
export type ConversationFileOwner = { tenantId: string; userId: string; conversationId: string };

export type ConversationFile = { id: string; name: string; mediaType: string; bytes: Buffer };

/** The files attached in conversations (the drawer's uploads), as the agent's tools may read them. */
export interface ConversationFiles {
  /** The file when it was uploaded by `owner.userId` in `owner.tenantId` and sent in `owner.conversationId`; else null. */
  find(owner: ConversationFileOwner, id: string): Promise<ConversationFile | null>;
}

/** The drawer's files in PostgreSQL (agent_files): tenant, uploader and conversation all in the query. */
export function drizzleConversationFiles(database: () => Promise<Database>): ConversationFiles {
  return {
    async find(owner, id) {
      if (!isUuid(id) || !isUuid(owner.conversationId)) return null;
      const db = await database();
      const [row] = await db
        .select({
          id: agentFiles.id,
          name: agentFiles.name,
          mediaType: agentFiles.mediaType,
          bytes: agentFiles.bytes,
        })
        .from(agentFiles)
        .where(
          and(
            eq(agentFiles.tenantId, owner.tenantId),
            eq(agentFiles.userId, owner.userId),
            eq(agentFiles.conversationId, owner.conversationId),
            eq(agentFiles.id, id),
          ),
        )
        .limit(1);
      return row ?? null;
    },
  };
}

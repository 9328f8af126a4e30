import "server-only";
import { and, desc, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { agentFiles, tenant } from "@/db/schema";
import type { SandboxFile } from "./sandbox";

/** The tenant's code_run setting: off (not offered), on (no files), files (the conversation's files, read-only). */
export type CodeRunMode = "off" | "on" | "files";

/** At most this many of a conversation's files are mounted (the newest); each carries its stored text (≤ 100,000 characters). */
export const SANDBOX_MAX_FILES = 50;

/** The tenant's code_run setting as stored (an unknown tenant: off, so nothing runs for it). */
export async function codeRunModeOf(db: Database, tenantId: string): Promise<CodeRunMode> {
  const [row] = await db.select({ mode: tenant.codeRunMode }).from(tenant).where(eq(tenant.id, tenantId));
  return row?.mode ?? "off";
}

/**
 * The files this user uploaded in this conversation, as the sandbox mounts them under /files/: their text (text
 * files and PDFs, as extracted at upload), an image with none. Another member's files, or another
 * conversation's, are not there. The bytes are never read: only the stored text.
 */
export async function sandboxFilesOf(
  db: Database,
  owner: { tenantId: string; userId: string; conversationId: string },
): Promise<SandboxFile[]> {
  const rows = await db
    .select({
      name: agentFiles.name,
      type: agentFiles.mediaType,
      size: agentFiles.size,
      text: agentFiles.text,
    })
    .from(agentFiles)
    .where(
      and(
        eq(agentFiles.tenantId, owner.tenantId),
        eq(agentFiles.userId, owner.userId),
        eq(agentFiles.conversationId, owner.conversationId),
      ),
    )
    .orderBy(desc(agentFiles.createdAt))
    .limit(SANDBOX_MAX_FILES);
  const taken = new Set<string>();
  return rows.reverse().map((row) => {
    const path = uniquePath(row.name, taken);
    return { path, name: path.slice("/files/".length), type: row.type, size: row.size, text: row.text };
  });
}

/** `/files/<name>`; a second file of the same name becomes `name (2).ext`. */
function uniquePath(name: string, taken: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem} (${n})${extension}`;
  taken.add(candidate);
  return `/files/${candidate}`;
}

import "server-only";
import { and, desc, eq, ilike } from "drizzle-orm";
import { z } from "zod";
import { type Database, getDb } from "@/db";
import { agentMemory } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import { defineTool, StaticToolSet } from "../tool";

const MAX_NOTES_PER_USER = 200;

/** Notes the agent keeps for one user within one tenant, in PostgreSQL (they outlive conversations). */
export function memoryToolSet(database: () => Promise<Database> = getDb): StaticToolSet {
  const remember = defineTool({
    name: "remember",
    needs: "user",
    description:
      "Save a short note about the user (a preference, a fact they asked you to keep) for later conversations.",
    category: "memory",
    keywords: ["remember", "note", "keep in mind"],
    parameters: z.object({
      note: z.string().min(1).max(2000).describe("The note, written so it makes sense later"),
    }),
    execute: async ({ note }, ctx) => {
      const db = await database();
      const existing = await db
        .select({ id: agentMemory.id })
        .from(agentMemory)
        .where(and(eq(agentMemory.tenantId, ctx.tenantId), eq(agentMemory.userId, ctx.userId)))
        .limit(MAX_NOTES_PER_USER);
      if (existing.length >= MAX_NOTES_PER_USER)
        throw new Error(`memory is full (${MAX_NOTES_PER_USER} notes); forget some first`);
      const [row] = await db
        .insert(agentMemory)
        .values({ tenantId: ctx.tenantId, userId: ctx.userId, note })
        .returning();
      return { id: row!.id, saved: true };
    },
  });
  const recall = defineTool({
    name: "recall",
    needs: "user",
    description:
      "List the notes saved about the user, newest first, optionally only those containing some words.",
    category: "memory",
    keywords: ["recall", "remember", "what do you know"],
    parameters: z.object({
      query: z.string().max(200).optional().describe("Only notes containing this text"),
      limit: z.number().int().min(1).max(50).optional().describe("How many notes at most (default 20)"),
    }),
    execute: async ({ query, limit }, ctx) => {
      const db = await database();
      const scope = and(eq(agentMemory.tenantId, ctx.tenantId), eq(agentMemory.userId, ctx.userId));
      const rows = await db
        .select({ id: agentMemory.id, note: agentMemory.note, createdAt: agentMemory.createdAt })
        .from(agentMemory)
        .where(query ? and(scope, ilike(agentMemory.note, likeContains(query))) : scope)
        .orderBy(desc(agentMemory.createdAt))
        .limit(limit ?? 20);
      return { notes: rows.map((r) => ({ id: r.id, note: r.note, savedAt: r.createdAt.toISOString() })) };
    },
  });
  const forget = defineTool({
    name: "forget",
    needs: "user",
    description: "Delete one saved note by its id.",
    category: "memory",
    keywords: ["forget", "delete note"],
    parameters: z.object({ id: z.uuid().describe("The note's id, from recall") }),
    execute: async ({ id }, ctx) => {
      const db = await database();
      const deleted = await db
        .delete(agentMemory)
        .where(
          and(
            eq(agentMemory.id, id),
            eq(agentMemory.tenantId, ctx.tenantId),
            eq(agentMemory.userId, ctx.userId),
          ),
        )
        .returning({ id: agentMemory.id });
      if (!deleted.length) throw new Error(`no note ${id}`);
      return { deleted: true };
    },
  });
  return new StaticToolSet(
    "memory",
    [remember, recall, forget],
    "You can remember notes about the user across conversations with remember, recall and forget.",
  );
}

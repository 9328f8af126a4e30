// A dataset item made from a recorded turn: the call's messages read back from its `request` audit event, the
// answer as the expected output; only a turn the reader may see.
import "server-only";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { type EvalInput, sysAgentAudit, sysAgentMessage, sysAgentTurn } from "@/db/schema";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";

type Message = { role: "system" | "user" | "assistant"; content: string };
const ROLE_LINE = /^(system|user|assistant|instructions|developer): ?(.*)$/;

/**
 * The messages of a call's `request` audit event ("role: content" lines, a message's further lines
 * following it); `instructions` and `developer` become system messages.
 */
export function messagesOfRequest(text: string): Message[] {
  const out: Message[] = [];
  for (const line of text.split("\n")) {
    const m = line.match(ROLE_LINE);
    if (m) {
      const role = m[1] === "user" || m[1] === "assistant" ? m[1] : "system";
      out.push({ role, content: m[2] ?? "" });
    } else if (out.length) out[out.length - 1]!.content += `\n${line}`;
  }
  return out
    .map((m) => ({ ...m, content: m.content.replace(/\n+$/, "") }))
    .filter((m) => m.content.trim() !== "");
}

/** Who asks for a turn's content: a tenant admin reads any turn of the tenant, anyone else only their own. */
export type TurnReader = { userId: string; admin: boolean };

/**
 * An item made from a ledger turn ("Add to dataset"): a drawer turn gives its conversation's messages up to it
 * (the users' messages and the answers between them) with its own answer as the expected output; an API call
 * (or a playground or eval call) gives the request's messages from its `request` audit event, and its answer when
 * one was recorded. The ledger and audit are the admins', so a prompt editor may use only their own turns; any
 * other turn is not found, exactly like a turn id that does not exist.
 */
export async function itemFromTurn(
  db: Database,
  tenantId: string,
  turnId: string,
  reader: TurnReader,
): Promise<{ input: EvalInput; expected: string | null; metadata: Record<string, unknown> }> {
  if (!isUuid(turnId)) throw notFound("turn");
  const [turn] = await db
    .select()
    .from(sysAgentTurn)
    .where(
      and(
        eq(sysAgentTurn.tenantId, tenantId),
        eq(sysAgentTurn.id, turnId),
        reader.admin ? undefined : eq(sysAgentTurn.userId, reader.userId),
      ),
    );
  if (!turn) throw notFound("turn");
  const audit = await db
    .select({ type: sysAgentAudit.type, payload: sysAgentAudit.payload })
    .from(sysAgentAudit)
    .where(
      and(
        eq(sysAgentAudit.tenantId, tenantId),
        eq(sysAgentAudit.turnId, turnId),
        inArray(sysAgentAudit.type, ["request", "answer"]),
      ),
    )
    .orderBy(asc(sysAgentAudit.seq));
  const answerEvent = audit.filter((a) => a.type === "answer").at(-1);
  let expected = typeof answerEvent?.payload.text === "string" ? answerEvent.payload.text : null;
  let messages: Message[] = [];
  if (turn.conversationId) {
    const rows = await db
      .select({
        seq: sysAgentMessage.seq,
        turnId: sysAgentMessage.turnId,
        role: sysAgentMessage.role,
        parts: sysAgentMessage.parts,
      })
      .from(sysAgentMessage)
      .where(
        and(
          eq(sysAgentMessage.tenantId, tenantId),
          eq(sysAgentMessage.sessionId, turn.conversationId),
          isNull(sysAgentMessage.supersededAt),
        ),
      )
      .orderBy(asc(sysAgentMessage.seq));
    const own = rows.filter((r) => r.turnId === turnId);
    const last = own.length ? own.at(-1)!.seq : null;
    const firstOwn = own.find((r) => r.role === "user")?.seq ?? own[0]?.seq;
    if (last !== null && firstOwn !== undefined) {
      for (const r of rows) {
        if (r.seq > last) break;
        if (r.parts.kind === "display" || r.parts.kind === "notification" || r.parts.kind === "tool_message")
          continue;
        if (r.role === "user") messages.push({ role: "user", content: r.parts.content });
        // Earlier answers stay as context; this turn's answer is the expected output.
        else if (r.role === "assistant" && r.seq < firstOwn && r.parts.content.trim())
          messages.push({ role: "assistant", content: r.parts.content });
      }
      if (expected === null) {
        const answer = own.filter((r) => r.role === "assistant" && r.parts.content.trim()).at(-1);
        expected = answer?.parts.content ?? null;
      }
    }
  }
  if (!messages.length) {
    const request = audit.find((a) => a.type === "request");
    if (typeof request?.payload.message === "string") messages = messagesOfRequest(request.payload.message);
  }
  if (!messages.some((m) => m.role === "user"))
    throw new AppError("validation_failed", "this turn has no user message to make a case of", {
      fields: { turnId: ["the turn's request has no user message"] },
    });
  return {
    input: { messages },
    expected,
    metadata: { source: turn.source, model: turn.requestedModel },
  };
}

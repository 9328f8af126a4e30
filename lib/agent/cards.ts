import "server-only";
import { log } from "@/lib/core/process/log";
import { type AgentCard, type AgentCardInput, agentCard } from "@/lib/turns/cards";

/** A tool's result with cards beside it: the model receives `result`, the drawer renders `cards`. */
export class ResultWithCards {
  constructor(
    readonly result: unknown,
    readonly cards: AgentCardInput[],
  ) {}
}

/** Returns `result` to the model and `cards` to the drawer (each validated; an invalid card is dropped and logged). */
export const withCards = (result: unknown, ...cards: AgentCardInput[]): ResultWithCards =>
  new ResultWithCards(result, cards);

/** The cards that pass the schema; a tool's bad card never costs the user the result. */
export function validCards(tool: string, cards: AgentCardInput[]): AgentCard[] {
  const out: AgentCard[] = [];
  for (const card of cards) {
    const parsed = agentCard.safeParse(card);
    if (parsed.success) out.push(parsed.data);
    else
      log.warn({ tool, issues: parsed.error.issues.slice(0, 3) }, "a tool returned an invalid card; dropped");
  }
  return out;
}

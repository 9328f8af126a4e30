import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { score } from "@/db/schema";
import type { TurnFeedback, TurnFeedbackInput } from "@/features/drawer/contracts";
import { FEEDBACK_SCORE, type ScoreView } from "@/features/scores/contracts";
import { deleteOwnScore, putScore, scoreView } from "@/features/scores/server";
import { notFound } from "@/lib/core/errors/app-error";
import { getTurnOrThrow } from "@/lib/governance/ledger";

/** The person voting and the tenant they are signed in to. */
export type Voter = { tenantId: string; userId: string };

/** A person's thumbs score as the drawer shows it; null when it is not a thumbs up / down (a config changed it). */
export function feedbackOf(
  view: Pick<ScoreView, "type" | "value" | "comment" | "updatedAt">,
): TurnFeedback | null {
  if (view.type !== "boolean" || typeof view.value !== "boolean") return null;
  return { value: view.value ? "up" : "down", comment: view.comment, updatedAt: view.updatedAt };
}

/**
 * The turn, when it is the voter's own in their tenant: the drawer shows a person only their own turns, so only
 * those take their vote. Another user's turn, another tenant's and a missing one all answer 404 alike.
 */
async function ownTurnOrThrow(db: Database, voter: Voter, turnId: string) {
  const turn = await getTurnOrThrow(db, { tenantId: voter.tenantId, turnId });
  if (turn.userId !== voter.userId) throw notFound("turn");
  return turn;
}

/** The voter's own vote on a turn, or null. */
export async function ownFeedback(db: Database, voter: Voter, turnId: string): Promise<TurnFeedback | null> {
  const [row] = await db
    .select()
    .from(score)
    .where(
      and(
        eq(score.tenantId, voter.tenantId),
        eq(score.turnId, turnId),
        eq(score.name, FEEDBACK_SCORE),
        eq(score.userId, voter.userId),
        eq(score.source, "human"),
      ),
    )
    .limit(1);
  return row ? feedbackOf(scoreView(row)) : null;
}

/**
 * Puts (or changes) the voter's thumbs on their own turn: one changeable score per person and turn, comment
 * masked by putScore. Without a comment in the input the stored one stays, so changing the vote keeps it.
 */
export async function putTurnFeedback(
  db: Database,
  voter: Voter,
  turnId: string,
  input: TurnFeedbackInput,
): Promise<TurnFeedback> {
  await ownTurnOrThrow(db, voter, turnId);
  const comment = input.comment ?? (await ownFeedback(db, voter, turnId))?.comment ?? undefined;
  const { score: saved } = await putScore(
    db,
    { tenantId: voter.tenantId, userId: voter.userId },
    { turnId, name: FEEDBACK_SCORE, value: input.value === "up", comment },
    "human",
  );
  const feedback = feedbackOf(saved);
  // putScore stored a boolean (or refused the value under the tenant's config), so this cannot be null.
  if (!feedback) throw new Error(`the thumbs score on ${turnId} was stored as ${saved.type}`);
  return feedback;
}

/** Takes the voter's vote on their own turn back; taking back a vote that is not there is not an error. */
export async function deleteTurnFeedback(db: Database, voter: Voter, turnId: string): Promise<void> {
  await ownTurnOrThrow(db, voter, turnId);
  await deleteOwnScore(db, voter, turnId, FEEDBACK_SCORE);
}

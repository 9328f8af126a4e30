// What other features use of scores: putting a person's score, taking it back, reading a turn's scores.
import "server-only";

export { deleteOwnScore, putScore, scoresOfTurns, scoreView } from "./scores";

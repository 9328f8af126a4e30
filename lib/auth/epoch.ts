import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { getAuthSecret } from "./secret";

/** A proof, made with AUTH_SECRET, that the server itself moved this user's session to this epoch. */
export function epochProof(userId: string, epoch: number): string {
  return createHmac("sha256", getAuthSecret()).update(`session-epoch:${userId}:${epoch}`).digest("base64url");
}

export function verifyEpochProof(userId: string, epoch: number, proof: string): boolean {
  const expected = Buffer.from(epochProof(userId, epoch));
  const given = Buffer.from(proof);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

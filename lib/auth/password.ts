import "server-only";
import bcrypt from "bcryptjs";
import { passwordProblem } from "./password-rules";

export { passwordProblem } from "./password-rules";

// bcrypt cost 10 is OWASP's floor; raise with BCRYPT_COST on faster hardware.
const COST = Math.min(Math.max(Number(process.env.BCRYPT_COST) || 10, 4), 15);

export async function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new Error(`password ${problem}`);
  return bcrypt.hash(password, COST);
}

/** Constant-time comparison; a missing hash (SSO-only user) never verifies. */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    // Spend the same time as a real check so response timing does not reveal which accounts exist.
    await bcrypt.compare(password, DUMMY_HASH);
    return false;
  }
  return bcrypt.compare(password, hash);
}

const DUMMY_HASH = "$2b$10$QFaCukGGzqnY1MQMrouO8.Iy4x0MKcx4WL3zHCXitdXwJwkWParJy";

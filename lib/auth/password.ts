import bcrypt from "bcryptjs";

// bcrypt cost 10 is OWASP's floor; raise with BCRYPT_COST on faster hardware.
const COST = Math.min(Math.max(Number(process.env.BCRYPT_COST) || 10, 4), 15);
export const MIN_PASSWORD_LENGTH = 8;
// bcrypt only reads the first 72 bytes; longer passwords would silently share a hash.
export const MAX_PASSWORD_BYTES = 72;

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES)
    return `must be at most ${MAX_PASSWORD_BYTES} bytes`;
  return null;
}

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

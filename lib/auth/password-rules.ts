// What a new password must be. Browser-safe (no Node APIs), so a form can say it before the route does.
export const MIN_PASSWORD_LENGTH = 8;
// bcrypt only reads the first 72 bytes; longer passwords would silently share a hash.
export const MAX_PASSWORD_BYTES = 72;

const utf8 = new TextEncoder();

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (utf8.encode(password).length > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes`;
  return null;
}

import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { AuthError } from "next-auth";
import { z } from "zod";
import { type Database, getDb } from "@/db";
import { AppError } from "@/lib/core/errors/app-error";
import { clientAddress } from "@/lib/http/client-address";
import { safeCallbackPath } from "./callback-path";
import { signIn } from "./index";
import { signInGate, type ThrottleKeys } from "./throttle";

export const loginSchema = z.object({
  email: z.string().trim().email("enter an email address").max(320),
  password: z.string().min(1, "enter your password").max(200),
  callbackUrl: z.string().max(2000).optional(),
});

export { safeCallbackPath } from "./callback-path";

export const WRONG_CREDENTIALS = "Wrong email or password.";

export const tooManySignIns = (retryAfterSeconds: number) =>
  new AppError("rate_limited", "Too many failed sign-in attempts. Wait a few minutes and try again.", {
    retryAfterSeconds,
  });

/**
 * Every password check passes here first: 429 while the address, or this email from this address, is blocked;
 * otherwise the email's delay (right password or wrong, so the wait says nothing about the answer).
 */
export async function passSignInThrottle(db: Database, keys: ThrottleKeys): Promise<void> {
  const gate = await signInGate(db, keys);
  if (gate.retryAfterSeconds > 0) throw tooManySignIns(gate.retryAfterSeconds);
  if (gate.delayMs > 0) await sleep(gate.delayMs);
}

/**
 * Signs in with email and password and sets the session cookie. Throws 429 while the address (or the email
 * from it) is throttled, and one 401 message for every kind of wrong credentials.
 */
export async function signInWithPassword(
  input: z.output<typeof loginSchema>,
  headers: Headers,
): Promise<string> {
  await passSignInThrottle(await getDb(), { email: input.email, address: clientAddress(headers) });
  try {
    await signIn("credentials", { email: input.email, password: input.password, redirect: false });
  } catch (error) {
    if (error instanceof AuthError && error.type === "CredentialsSignin") {
      throw new AppError("unauthorized", WRONG_CREDENTIALS);
    }
    throw error;
  }
  return safeCallbackPath(input.callbackUrl);
}

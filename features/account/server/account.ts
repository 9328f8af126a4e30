import "server-only";
import { eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { appUser } from "@/db/schema";
import type { changePasswordInput } from "@/features/account/contracts";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { AppError, notFound } from "@/lib/core/errors/app-error";

/**
 * Changes the user's own password; the current one is required. Every other session ends (the epoch moves on);
 * the caller re-issues the current one. Returns the new epoch.
 */
export async function changePassword(
  db: Database,
  userId: string,
  input: z.output<typeof changePasswordInput>,
): Promise<number> {
  const [user] = await db.select().from(appUser).where(eq(appUser.id, userId)).limit(1);
  if (!user) throw notFound("user");
  if (!user.passwordHash)
    throw new AppError(
      "bad_request",
      "this account signs in through single sign-on and has no password here",
    );
  if (!(await verifyPassword(input.currentPassword, user.passwordHash)))
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { currentPassword: ["this is not your current password"] },
    });
  if (input.newPassword === input.currentPassword)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { newPassword: ["choose a password different from the current one"] },
    });
  const [row] = await db
    .update(appUser)
    .set({
      passwordHash: await hashPassword(input.newPassword),
      sessionEpoch: sql`${appUser.sessionEpoch} + 1`,
    })
    .where(eq(appUser.id, userId))
    .returning({ epoch: appUser.sessionEpoch });
  return row!.epoch;
}

/** Ends every session of the user at once (each is checked against the epoch on its next request). */
export async function bumpSessionEpoch(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .update(appUser)
    .set({ sessionEpoch: sql`${appUser.sessionEpoch} + 1` })
    .where(eq(appUser.id, userId))
    .returning({ epoch: appUser.sessionEpoch });
  if (!row) throw notFound("user");
  return row.epoch;
}

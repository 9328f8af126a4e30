import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { appUser } from "@/db/schema";
import { hashPassword, passwordProblem } from "./password";
import { endAllSessions } from "./sessions";
import { findUserByEmail } from "./users";

export const superAdminInput = z.object({
  email: z.email("must be an email address").max(320),
  name: z.string().trim().min(1, "must not be empty").max(200),
  password: z.string().superRefine((value, ctx) => {
    const problem = passwordProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});

/**
 * Creates the platform super admin for a real deployment, or promotes an existing user and sets the new
 * password (the operator is the authority here), ending its sessions. Returns what it did.
 */
export async function createSuperAdmin(
  db: Database,
  input: z.input<typeof superAdminInput>,
): Promise<{ userId: string; created: boolean }> {
  const { email, name, password } = superAdminInput.parse(input);
  const passwordHash = await hashPassword(password);
  const existing = await findUserByEmail(db, email);
  if (existing) {
    await db.transaction(async (tx) => {
      await tx
        .update(appUser)
        .set({ isSuperAdmin: true, disabled: false, passwordHash, name, emailVerified: true })
        .where(eq(appUser.id, existing.id));
      // Whoever held the account until now (it may have come from an invitation link) is signed out.
      await endAllSessions(tx, existing.id);
    });
    return { userId: existing.id, created: false };
  }
  const [row] = await db
    .insert(appUser)
    .values({ email, name, passwordHash, isSuperAdmin: true, emailVerified: true })
    .returning();
  return { userId: row!.id, created: true };
}

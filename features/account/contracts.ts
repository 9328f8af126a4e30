// What the account routes take, shared by the routes and the browser. Browser-safe: zod only.

import { passwordProblem } from "@/lib/auth/password-rules";
import { z } from "@/lib/core/schema/zod";

/** POST /api/account/password */
export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, "enter your current password").max(200),
  newPassword: z.string().superRefine((value, ctx) => {
    const problem = passwordProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});

/** POST /api/account/password answers this; the other sessions have ended. */
export type PasswordChanged = { changed: true };
/** DELETE /api/account/sessions answers this; this session stays signed in. */
export type OthersSignedOut = { signedOutOthers: true };

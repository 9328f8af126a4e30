// What the member and invitation routes take and answer, shared by the routes and the browser.
// Browser-safe: zod only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { z } from "@/lib/core/schema/zod";

export const role = z.enum(["member", "admin"], "member or admin");
export type Role = z.infer<typeof role>;

export const changeRoleInput = z.object({ role });

/** Whether a member may create prompt versions and move labels other than `production` (admins may by role). */
export const setPromptEditorInput = z.object({ promptEditor: z.boolean("true or false") });

/** Whether a member may work the review queues open to reviewers (admins may work every queue by role). */
export const setReviewerInput = z.object({ reviewer: z.boolean("true or false") });

/** PATCH /api/admin/members/:userId: a new role, the prompt editor flag, the reviewer flag, or several. */
export const changeMemberInput = z
  .object({
    role: role.optional(),
    promptEditor: z.boolean("true or false").optional(),
    reviewer: z.boolean("true or false").optional(),
  })
  .strict()
  .refine((v) => v.role !== undefined || v.promptEditor !== undefined || v.reviewer !== undefined, {
    message: "give role, promptEditor and/or reviewer",
    path: ["role"],
  });

export const DEFAULT_INVITATION_DAYS = 7;
/** POST /api/admin/invitations */
export const createInvitationInput = z.object({
  email: z
    .email("an email address")
    .max(320)
    .transform((e) => e.trim().toLowerCase()),
  role: role.default("member"),
  expiresInDays: z
    .number()
    .int()
    .min(1, "at least 1 day")
    .max(30, "at most 30 days")
    .default(DEFAULT_INVITATION_DAYS),
});

/** POST /api/invitations/:token/accept: a new invitee sends a name and password, an existing account its own. */
export const acceptInvitationInput = z.object({
  name: z.string().trim().min(1, "enter your name").max(200).refine(hasNoNul, NO_NUL).optional(),
  password: z.string().min(1, "enter a password").max(200),
});

export type MemberView = {
  userId: string;
  email: string;
  name: string;
  role: Role;
  promptEditor: boolean;
  reviewer: boolean;
  joinedAt: Date;
};

/** A pending invitation (never its token). */
export type InvitationView = {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  invitedBy: string;
};

/** POST /api/admin/invitations answers the link, shown this once. */
export type CreatedInvitation = { invitation: InvitationView; link: string };

/** What an invitation link offers, before it is accepted. */
export type InvitationLookup = {
  tenantName: string;
  email: string;
  role: Role;
  expiresAt: Date;
  /** The email already has an account: accepting asks for its password instead of setting one. */
  accountExists: boolean;
};

/** POST /api/invitations/:token/accept answers the email to sign in with. */
export type AcceptedInvitation = { accepted: true; email: string };

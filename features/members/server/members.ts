import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database, Executor } from "@/db";
import { appUser, invitation, membership, tenant } from "@/db/schema";
import type {
  acceptInvitationInput,
  changeRoleInput,
  createInvitationInput,
  InvitationLookup,
  InvitationView,
  MemberView,
  setPromptEditorInput,
  setReviewerInput,
} from "@/features/members/contracts";
import { hashPassword, passwordProblem, verifyPassword } from "@/lib/auth/password";
import { findUserByEmail } from "@/lib/auth/users";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { trustedForwarded } from "@/lib/http/client-address";

export async function listMembers(db: Database, tenantId: string): Promise<MemberView[]> {
  return db
    .select({
      userId: appUser.id,
      email: appUser.email,
      name: appUser.name,
      role: membership.role,
      promptEditor: membership.promptEditor,
      reviewer: membership.reviewer,
      joinedAt: membership.createdAt,
    })
    .from(membership)
    .innerJoin(appUser, eq(appUser.id, membership.userId))
    .where(eq(membership.tenantId, tenantId))
    .orderBy(asc(appUser.email));
}

/** Locks the tenant's memberships and refuses a change that would leave it without an admin. */
async function assertAnotherAdmin(tx: Executor, tenantId: string, userId: string, what: string) {
  const admins = await tx
    .select({ userId: membership.userId })
    .from(membership)
    .where(and(eq(membership.tenantId, tenantId), eq(membership.role, "admin")))
    .for("update");
  if (!admins.some((a) => a.userId !== userId))
    throw new AppError(
      "conflict",
      `${what}: a tenant needs at least one admin. Make someone else admin first.`,
    );
}

async function membershipOf(tx: Executor, tenantId: string, userId: string) {
  const [row] = await tx
    .select({ role: membership.role, email: appUser.email })
    .from(membership)
    .innerJoin(appUser, eq(appUser.id, membership.userId))
    .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)))
    .for("update", { of: membership });
  if (!row) throw notFound("member");
  return row;
}

/** Changes a member's role; it takes effect on their next request (guards re-read it), no sign-out needed. */
export async function changeRole(
  db: Database,
  actor: Actor,
  tenantId: string,
  userId: string,
  input: z.output<typeof changeRoleInput>,
): Promise<MemberView> {
  await db.transaction(async (tx) => {
    const current = await membershipOf(tx, tenantId, userId);
    if (current.role === input.role) return;
    if (current.role === "admin")
      await assertAnotherAdmin(tx, tenantId, userId, "cannot demote the last admin");
    await tx
      .update(membership)
      .set({ role: input.role })
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)));
    await recordChange(tx, actor, {
      tenantId,
      action: "member.role_changed",
      objectType: "member",
      objectId: userId,
      before: { email: current.email, role: current.role },
      after: { email: current.email, role: input.role },
    });
  });
  const member = (await listMembers(db, tenantId)).find((m) => m.userId === userId);
  if (!member) throw notFound("member");
  return member;
}

/**
 * Lets a member create prompt versions and move prompt labels other than `production`, or stops it (admins may by
 * role; the flag they keep matters once they are no longer admins). Takes effect on their next request.
 */
export async function setPromptEditor(
  db: Database,
  actor: Actor,
  tenantId: string,
  userId: string,
  input: z.output<typeof setPromptEditorInput>,
): Promise<MemberView> {
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ editor: membership.promptEditor, email: appUser.email })
      .from(membership)
      .innerJoin(appUser, eq(appUser.id, membership.userId))
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)))
      .for("update", { of: membership });
    if (!current) throw notFound("member");
    if (current.editor === input.promptEditor) return;
    await tx
      .update(membership)
      .set({ promptEditor: input.promptEditor })
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)));
    await recordChange(tx, actor, {
      tenantId,
      action: "member.prompt_editor_set",
      objectType: "member",
      objectId: userId,
      before: { email: current.email, promptEditor: current.editor },
      after: { email: current.email, promptEditor: input.promptEditor },
    });
  });
  const member = (await listMembers(db, tenantId)).find((m) => m.userId === userId);
  if (!member) throw notFound("member");
  return member;
}

/**
 * Lets a member work the review queues open to reviewers, or stops it (admins work every queue by role; the flag
 * they keep matters once they are no longer admins). Takes effect on their next request.
 */
export async function setReviewer(
  db: Database,
  actor: Actor,
  tenantId: string,
  userId: string,
  input: z.output<typeof setReviewerInput>,
): Promise<MemberView> {
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ reviewer: membership.reviewer, email: appUser.email })
      .from(membership)
      .innerJoin(appUser, eq(appUser.id, membership.userId))
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)))
      .for("update", { of: membership });
    if (!current) throw notFound("member");
    if (current.reviewer === input.reviewer) return;
    await tx
      .update(membership)
      .set({ reviewer: input.reviewer })
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)));
    await recordChange(tx, actor, {
      tenantId,
      action: "member.reviewer_set",
      objectType: "member",
      objectId: userId,
      before: { email: current.email, reviewer: current.reviewer },
      after: { email: current.email, reviewer: input.reviewer },
    });
  });
  const member = (await listMembers(db, tenantId)).find((m) => m.userId === userId);
  if (!member) throw notFound("member");
  return member;
}

/**
 * Removes a member: they lose access at once (their open sessions included, as guards re-read memberships);
 * their conversations and ledger rows stay with the tenant's records.
 */
export async function removeMember(
  db: Database,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await membershipOf(tx, tenantId, userId);
    if (current.role === "admin")
      await assertAnotherAdmin(tx, tenantId, userId, "cannot remove the last admin");
    await tx.delete(membership).where(and(eq(membership.tenantId, tenantId), eq(membership.userId, userId)));
    await recordChange(tx, actor, {
      tenantId,
      action: "member.removed",
      objectType: "member",
      objectId: userId,
      before: { email: current.email, role: current.role },
      after: null,
    });
  });
}

// --- invitations ---------------------------------------------------------------------------------------------

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** Pending invitations: neither accepted, revoked nor expired. */
export async function listInvitations(
  db: Database,
  tenantId: string,
  now = new Date(),
): Promise<InvitationView[]> {
  return db
    .select({
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      createdAt: invitation.createdAt,
      expiresAt: invitation.expiresAt,
      invitedBy: sql<string>`coalesce((select u.email from ${appUser} u where u.id = "invitation"."invited_by"), '')`,
    })
    .from(invitation)
    .where(
      and(
        eq(invitation.tenantId, tenantId),
        isNull(invitation.acceptedAt),
        isNull(invitation.revokedAt),
        gt(invitation.expiresAt, now),
      ),
    )
    .orderBy(desc(invitation.createdAt));
}

const HOST = /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The link an invitee opens, on the address people reach the app at: AUTH_URL (or NEXTAUTH_URL) when set;
 * else X-Forwarded-Host only when TRUST_PROXY says a proxy sets it; else the request's own Host when it was not
 * forwarded; else the server's own origin. A client's forged X-Forwarded-Host never makes the link, which an
 * admin passes on as trusted, point at someone else's host. (Next's server copies Host into X-Forwarded-Host
 * when none came in, so the two being equal means "not forwarded".)
 */
export function invitationLink(req: Request, token: string): string {
  return `${publicOrigin(req)}/invite/${token}`;
}

function publicOrigin(req: Request): string {
  const configured = (process.env.AUTH_URL || process.env.NEXTAUTH_URL)?.trim();
  if (configured) return new URL(configured).origin;
  const own = new URL(req.url);
  const host = req.headers.get("host");
  const forwardedHost = req.headers.get("x-forwarded-host");
  const viaProxy = trustedForwarded(req.headers, "x-forwarded-host");
  if (viaProxy && HOST.test(viaProxy)) {
    const proto = trustedForwarded(req.headers, "x-forwarded-proto");
    return `${proto === "https" || proto === "http" ? `${proto}:` : own.protocol}//${viaProxy}`;
  }
  const forwarded = forwardedHost !== null && forwardedHost.trim() !== host;
  if (host && !forwarded && HOST.test(host)) return `${own.protocol}//${host}`;
  return own.origin;
}

/** Invites someone by email; the token is returned this once (the link the admin passes on), only its hash kept. */
export async function createInvitation(
  db: Database,
  actor: Actor,
  tenantId: string,
  input: z.output<typeof createInvitationInput>,
  now = new Date(),
): Promise<{ token: string; invitation: InvitationView }> {
  const existing = await findUserByEmail(db, input.email);
  if (existing) {
    const [member] = await db
      .select({ role: membership.role })
      .from(membership)
      .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, existing.id)));
    if (member)
      throw new AppError("conflict", `${input.email} is already a member of this tenant`, {
        fields: { email: ["already a member"] },
      });
  }
  const [pending] = await db
    .select({ expiresAt: invitation.expiresAt })
    .from(invitation)
    .where(
      and(
        eq(invitation.tenantId, tenantId),
        eq(invitation.email, input.email),
        isNull(invitation.acceptedAt),
        isNull(invitation.revokedAt),
        gt(invitation.expiresAt, now),
      ),
    )
    .limit(1);
  if (pending)
    throw new AppError(
      "conflict",
      `${input.email} already has a pending invitation (until ${pending.expiresAt.toISOString().slice(0, 10)}); revoke it to send a new one`,
      { fields: { email: ["already invited"] } },
    );
  const token = randomBytes(24).toString("base64url");
  const expiresAt = new Date(now.getTime() + input.expiresInDays * 86_400_000);
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(invitation)
      .values({
        tenantId,
        email: input.email,
        role: input.role,
        tokenHash: tokenHash(token),
        invitedBy: actor.id,
        expiresAt,
      })
      .returning();
    await recordChange(tx, actor, {
      tenantId,
      action: "invitation.created",
      objectType: "invitation",
      objectId: created!.id,
      before: null,
      after: { email: input.email, role: input.role, expiresAt },
    });
    return created!;
  });
  return {
    token,
    invitation: {
      id: row.id,
      email: row.email,
      role: row.role,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      invitedBy: actor.email,
    },
  };
}

export async function revokeInvitation(
  db: Database,
  actor: Actor,
  tenantId: string,
  id: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(invitation)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(invitation.tenantId, tenantId),
          eq(invitation.id, id),
          isNull(invitation.acceptedAt),
          isNull(invitation.revokedAt),
        ),
      )
      .returning();
    if (!row) throw notFound("pending invitation");
    await recordChange(tx, actor, {
      tenantId,
      action: "invitation.revoked",
      objectType: "invitation",
      objectId: id,
      before: { email: row.email, role: row.role, status: "pending" },
      after: { email: row.email, role: row.role, status: "revoked" },
    });
  });
}

/** 404 for a token that never existed; 410 (gone) naming why for a used, revoked or expired one. */
async function usableInvitation(db: Executor, token: string, now: Date, lock = false) {
  const query = db
    .select({ inv: invitation, tenantName: tenant.name, tenantDisabled: tenant.disabled })
    .from(invitation)
    .innerJoin(tenant, eq(tenant.id, invitation.tenantId))
    .where(eq(invitation.tokenHash, tokenHash(token)))
    .limit(1);
  const [row] = lock ? await query.for("update", { of: invitation }) : await query;
  if (!row) throw notFound("invitation");
  const gone = (why: string) => new AppError("gone", `This invitation ${why}. Ask your admin for a new one.`);
  if (row.inv.acceptedAt) throw gone("has already been used");
  if (row.inv.revokedAt) throw gone("was revoked");
  if (row.inv.expiresAt <= now) throw gone("has expired");
  if (row.tenantDisabled) throw gone("is for a tenant that is disabled");
  return row;
}

export async function lookupInvitation(
  db: Database,
  token: string,
  now = new Date(),
): Promise<InvitationLookup> {
  const row = await usableInvitation(db, token, now);
  return {
    tenantName: row.tenantName,
    email: row.inv.email,
    role: row.inv.role,
    expiresAt: row.inv.expiresAt,
    accountExists: Boolean(await findUserByEmail(db, row.inv.email)),
  };
}

/**
 * Accepts an invitation, once: a new invitee sets their name and password; someone who already has an account
 * proves it with their password. Either way they become a member with the invited role.
 */
export async function acceptInvitation(
  db: Database,
  token: string,
  input: z.output<typeof acceptInvitationInput>,
  now = new Date(),
): Promise<{ email: string; tenantId: string }> {
  return db.transaction(async (tx) => {
    const { inv } = await usableInvitation(tx, token, now, true);
    let user = await findUserByEmail(tx, inv.email);
    if (user) {
      if (!(await verifyPassword(input.password, user.passwordHash)))
        throw new AppError("unauthorized", "Wrong password for this account.", {
          fields: { password: ["wrong password for this account"] },
        });
    } else {
      const problem = passwordProblem(input.password);
      if (problem)
        throw new AppError("validation_failed", "the request is invalid", {
          fields: { password: [problem] },
        });
      if (!input.name)
        throw new AppError("validation_failed", "the request is invalid", {
          fields: { name: ["enter your name"] },
        });
      // Whoever opened the link set this password, and the link may have gone no further than the inviting
      // admin: the account stays unverified, so single sign-on never adopts it as the email's owner.
      [user] = await tx
        .insert(appUser)
        .values({
          email: inv.email,
          name: input.name,
          passwordHash: await hashPassword(input.password),
          emailVerified: false,
        })
        .returning();
    }
    // Someone who is a member already keeps their role: an invitation never demotes.
    const [joined] = await tx
      .insert(membership)
      .values({ tenantId: inv.tenantId, userId: user!.id, role: inv.role })
      .onConflictDoNothing()
      .returning({ role: membership.role });
    const [current] = joined
      ? [joined]
      : await tx
          .select({ role: membership.role })
          .from(membership)
          .where(and(eq(membership.tenantId, inv.tenantId), eq(membership.userId, user!.id)));
    await tx
      .update(invitation)
      .set({ acceptedAt: now, acceptedBy: user!.id })
      .where(eq(invitation.id, inv.id));
    await recordChange(
      tx,
      { id: user!.id, email: user!.email },
      {
        tenantId: inv.tenantId,
        action: "invitation.accepted",
        objectType: "invitation",
        objectId: inv.id,
        before: { email: inv.email, role: inv.role, status: "pending" },
        after: { email: inv.email, role: current?.role ?? inv.role, status: "accepted", userId: user!.id },
      },
    );
    return { email: user!.email, tenantId: inv.tenantId };
  });
}

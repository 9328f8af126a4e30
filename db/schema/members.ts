// Who belongs to which tenant, in which role, and the invitations to join one.
import "server-only";
import { boolean, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { tenantRef, userRef } from "./references";
import { membershipRole } from "./tenants";

export const membership = pgTable(
  "membership",
  {
    tenantId: tenantRef(),
    userId: userRef(),
    role: membershipRole("role").notNull().default("member"),
    // A member an admin lets edit prompts: create versions and move labels other than `production`.
    promptEditor: boolean("prompt_editor").notNull().default(false),
    // A member an admin lets work the review queues open to reviewers.
    reviewer: boolean("reviewer").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("membership_user_idx").on(t.userId)],
);
export type Membership = typeof membership.$inferSelect;

// Invitations to join a tenant: a link with a random token (only its SHA-256 is kept), used once, until it expires.
export const invitation = pgTable(
  "invitation",
  {
    id: id(),
    tenantId: tenantRef(),
    email: text("email").notNull(),
    role: membershipRole("role").notNull().default("member"),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: uuid("invited_by").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by"),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("invitation_tenant_idx").on(t.tenantId, t.createdAt)],
);
export type Invitation = typeof invitation.$inferSelect;

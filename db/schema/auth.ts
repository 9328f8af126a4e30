// Sign-in: single sign-on identities and domains, failed sign-in counters, sessions.
import "server-only";
import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { appUser, tenant } from "./tenants";

// Single sign-on identities: the identity provider's subject for an account. Once linked, a sign-in from that
// issuer finds the account by subject, never by email again.
export const userIdentity = pgTable(
  "user_identity",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index("user_identity_user_idx").on(t.userId)],
);
export type UserIdentity = typeof userIdentity.$inferSelect;

// Email domains whose people may join a tenant as members on their first single sign-on. The platform super
// admin grants them; a domain belongs to at most one tenant.
export const tenantSsoDomain = pgTable(
  "tenant_sso_domain",
  {
    domain: text("domain").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [index("tenant_sso_domain_tenant_idx").on(t.tenantId)],
);

// Failed sign-in counters, keyed by "email:<address>" or "ip:<address>"; shared by every app instance.
export const authThrottle = pgTable("auth_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().defaultNow(),
  blockedUntil: timestamp("blocked_until", { withTimezone: true }),
});

// One row per signed-in session (the cookie's `sid`); sign-out revokes it, and the guards refuse a revoked or
// unknown one. Users are not tenant-scoped, so neither are their sessions.
export const authSession = pgTable(
  "auth_session",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    userAgent: text("user_agent"),
    ip: text("ip"),
  },
  (t) => [index("auth_session_user_idx").on(t.userId, t.lastSeenAt)],
);
export type AuthSession = typeof authSession.$inferSelect;

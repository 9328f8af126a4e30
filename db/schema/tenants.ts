// Tenants and the accounts of the people in them.
import "server-only";
import { sql } from "drizzle-orm";
import { boolean, integer, jsonb, pgEnum, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";

export const membershipRole = pgEnum("membership_role", ["member", "admin"]);
export type MembershipRole = (typeof membershipRole.enumValues)[number];

export const tenant = pgTable("tenant", {
  id: id(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  disabled: boolean("disabled").notNull().default(false),
  // How long ledger, audit and rollup rows are kept; conversations are never deleted by retention.
  retentionDays: integer("retention_days").notNull().default(90),
  // Ledger months wholly older than this many days go to the archive (ARCHIVE_DIR / ARCHIVE_S3_BUCKET); null:
  // the deployment's ARCHIVE_AFTER_DAYS, and no archiving when that is unset too.
  archiveAfterDays: integer("archive_after_days"),
  // The response cache: the model aliases whose exact repeats are answered from the cache, and for how long.
  cacheAliases: jsonb("cache_aliases").$type<string[]>().notNull().default([]),
  cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(3600),
  // Under a hard budget, a call that sets no max_tokens is sent with this many, so its reservation bounds it.
  maxOutputTokensDefault: integer("max_output_tokens_default").notNull().default(4096),
  // What web_fetch may reach for this tenant: nothing (off), the listed domains and their subdomains, or any
  // public address (the address guard always applies).
  webFetchMode: text("web_fetch_mode").$type<"off" | "allowlist" | "any">().notNull().default("any"),
  webFetchDomains: jsonb("web_fetch_domains").$type<string[]>().notNull().default([]),
  // The code sandbox tool set (code_run): off (the default), on (no file system), or on with a read-only
  // virtual file system of the conversation's attachments.
  codeRunMode: text("code_run_mode").$type<"off" | "on" | "files">().notNull().default("off"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
export type Tenant = typeof tenant.$inferSelect;

export const appUser = pgTable(
  "app_user",
  {
    id: id(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    // Null for users who only sign in through single sign-on.
    passwordHash: text("password_hash"),
    isSuperAdmin: boolean("is_super_admin").notNull().default(false),
    disabled: boolean("disabled").notNull().default(false),
    // Sessions carry the epoch they were issued in; raising it signs out every other session at once.
    sessionEpoch: integer("session_epoch").notNull().default(0),
    // Whether whoever holds this account proved the email (operator, demo seed, an identity provider's verified
    // claim). An account made from an invitation link is not: anyone holding the link could have made it.
    emailVerified: boolean("email_verified").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("app_user_email_lower_idx").on(sql`lower(${t.email})`)],
);
export type AppUser = typeof appUser.$inferSelect;

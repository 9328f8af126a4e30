// The owner columns: most tables belong to a tenant, many also to a user.
import "server-only";
import { uuid } from "drizzle-orm/pg-core";
import { appUser, tenant } from "./tenants";

// Most tables belong to a tenant (and many to a user); deleting the tenant or user deletes their rows.
export const tenantRef = () =>
  uuid("tenant_id")
    .notNull()
    .references(() => tenant.id, { onDelete: "cascade" });
export const userRef = () =>
  uuid("user_id")
    .notNull()
    .references(() => appUser.id, { onDelete: "cascade" });

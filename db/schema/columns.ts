// Columns most tables share: a time-ordered id and the creation and update stamps.
import "server-only";
import { timestamp, uuid } from "drizzle-orm/pg-core";
import { v7 as uuidv7 } from "uuid";

export const id = () =>
  uuid("id")
    .primaryKey()
    .$defaultFn(() => uuidv7());
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

// Cards a tool may return beside its result: the drawer renders them, the model never sees them. Browser-safe.
import { z } from "@/lib/core/schema/zod";

const title = z.string().max(200).optional();
/** A link inside the app (a path starting with "/") or to an http(s) address. */
const href = z
  .string()
  .max(2000)
  .refine(
    (h) => /^\/(?!\/)/.test(h) || /^https?:\/\//.test(h),
    "a card link is an app path or an http(s) URL",
  );
const cell = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);

export const CARD_COLUMN_TYPES = ["text", "number", "money", "datetime", "link"] as const;
export type CardColumnType = (typeof CARD_COLUMN_TYPES)[number];

/**
 * The object a card shows, offered as a context item ("Use as context" in the drawer): its type is one of the
 * drawer's context types (features/drawer/contracts.ts CONTEXT_TYPES), checked again by the turn route.
 */
const cardContext = z.object({
  type: z.string().min(1).max(40),
  id: z.string().min(1).max(200),
  label: z.string().min(1).max(200),
});

export const agentCard = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("kv"),
    title,
    items: z
      .array(
        z.object({
          label: z.string().max(200),
          value: cell,
          /** How the value reads (money, a localised time…); plain text when absent. */
          type: z.enum(CARD_COLUMN_TYPES).optional(),
          href: href.optional(),
        }),
      )
      .max(50),
    context: cardContext.optional(),
  }),
  z.object({
    kind: z.literal("table"),
    title,
    columns: z
      .array(
        z.object({
          key: z.string().max(100),
          label: z.string().max(200),
          /** A link column's cell is an href (app path or http(s) URL); the row's `<key>Label` is its text. */
          type: z.enum(CARD_COLUMN_TYPES).default("text"),
        }),
      )
      .min(1)
      .max(20),
    rows: z.array(z.record(z.string(), cell)).max(200),
    /** A link under the table (e.g. the page with these filters). */
    link: z.object({ label: z.string().max(200), href }).optional(),
  }),
  z.object({
    kind: z.literal("links"),
    title,
    links: z
      .array(z.object({ label: z.string().max(200), href }))
      .min(1)
      .max(50),
  }),
]);

export type AgentCard = z.infer<typeof agentCard>;
export type AgentCardInput = z.input<typeof agentCard>;

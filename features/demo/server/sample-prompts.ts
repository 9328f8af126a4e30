import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { appUser, sysAgentTurn, tenant } from "@/db/schema";
import { createVersion } from "@/features/prompts/server";

const ADMIN = { edit: true, admin: true };

/**
 * Acme's demo prompts: `support/triage` (a chat prompt, version 1 in production and version 2 on staging) and
 * `summarise` (a text prompt), and, when there is sample usage, Acme's sample API calls of the last month
 * (about half of them) attributed to the triage prompt (version 2 for the last three days), so the prompt list, the ledger's prompt
 * filter and the version comparison have something to show.
 */
export async function seedDemoPrompts(db: Database): Promise<void> {
  const [acme] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "acme"));
  const [admin] = await db
    .select({ id: appUser.id, email: appUser.email })
    .from(appUser)
    .where(eq(appUser.email, "admin@acme.test"));
  if (!acme || !admin) return;
  const actor = { id: admin.id, email: admin.email, requestId: "demo-seed" };
  const system =
    "You triage support tickets for {{company}}. Answer with one of: billing, shipping, bug, other.";
  await createVersion(
    db,
    acme.id,
    {
      name: "support/triage",
      type: "chat",
      messages: [
        { role: "system", content: system },
        { role: "user", content: "Ticket: {{ticket}}" },
      ],
      config: { model: "offline-demo", temperature: 0 },
      labels: ["production"],
      message: "First version",
    },
    actor,
    ADMIN,
  );
  await createVersion(
    db,
    acme.id,
    {
      name: "support/triage",
      type: "chat",
      messages: [
        { role: "system", content: `${system} Then give a one-line reason.` },
        { role: "user", content: "Ticket: {{ticket}}" },
      ],
      config: { model: "offline-demo", temperature: 0, maxTokens: 200 },
      labels: ["staging"],
      message: "Ask for a reason with the category",
    },
    actor,
    ADMIN,
  );
  await createVersion(
    db,
    acme.id,
    {
      name: "summarise",
      type: "text",
      text: "Summarise the following in {{words}} words or fewer:\n\n{{text}}",
      message: "Summaries for the weekly report",
    },
    actor,
    ADMIN,
  );
  const t = sysAgentTurn;
  const recent = sql`${t.startedAt} > now() - interval '3 days'`;
  await db
    .update(t)
    .set({
      promptName: "support/triage",
      promptVersion: sql`case when ${recent} then 2 else 1 end`,
    })
    .where(
      and(
        eq(t.tenantId, acme.id),
        eq(t.source, "api"),
        sql`${t.status} <> 'running'`,
        sql`extract(second from ${t.startedAt})::int % 2 = 0`,
      ),
    );
}

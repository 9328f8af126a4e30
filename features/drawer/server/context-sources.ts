import "server-only";
import Big from "big.js";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { evalDataset, evalRun, evalRunItem, prompt, promptVersion } from "@/db/schema";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { findDemoOrder } from "@/features/demo/server";
import type { ContextType, SendTurnInput } from "@/features/drawer/contracts";
import { evalAccess } from "@/features/evals/server";
import { findVersion, promptAccess, type VersionRef } from "@/features/prompts/server";
import { turnReplay } from "@/features/replay/server";
import type { UserContext } from "@/lib/auth/guards";
import type { TenantAccess } from "@/lib/auth/users";
import { AppError, forbidden, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { container } from "@/server/container";

/** What loading a context item needs: who asks, in which tenant, and the items they sent. */
export type ContextInput = {
  db: Database;
  auth: UserContext;
  tenant: TenantAccess;
  request: Pick<SendTurnInput, "context">;
};

/** What a context item is to the model: the chip's label and a few fields, in the order they are read. */
export type ContextSummary = { label: string; fields: Record<string, unknown> };
type ContextSource = (input: ContextInput, id: string) => Promise<ContextSummary>;

/** One loader per context type; each reads with the asker's role and active tenant, as the object's page does. */
export const CONTEXT_SOURCES: Record<ContextType, ContextSource> = {
  turn: turnSummary,
  audit_turn: auditTurnSummary,
  prompt_version: promptVersionSummary,
  eval_item: evalItemSummary,
  order: orderSummary,
};

const short = (id: string) => `${id.slice(0, 8)}…`;
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const clip = (text: unknown, max: number): string | null => {
  const s = str(text);
  return s === null ? null : s.length > max ? `${s.slice(0, max)}…` : s;
};
/** Money as the label shows it: cents from a dollar up, two significant digits below (exact in the block). */
const dollars = (cost: unknown): string | null => {
  const s = str(cost);
  if (s === null) return null;
  const value = new Big(s);
  return `$${(value.gte(1) ? value.round(2) : value.prec(2)).toFixed()}`;
};

/**
 * The page, in the scope it opens in for this user (403 when their role cannot open it). The drawer always has an
 * active tenant, so the scope is that tenant, never the whole platform.
 */
function openPage(key: string, auth: UserContext): { provider: PageProvider; ctx: ProviderContext } {
  const { provider, ctx } = container().pages.open(key, auth);
  if (!ctx.tenantId) throw forbidden("choose a tenant first");
  return { provider, ctx };
}

/** A ledger row, for whoever may open the usage ledger (tenant admins; the super admin in the chosen tenant). */
async function turnSummary({ auth }: ContextInput, id: string): Promise<ContextSummary> {
  const { provider, ctx } = openPage("agent-turns", auth);
  const found = await provider.detail(ctx, id);
  if (!found) throw notFound("turn");
  const r = found.row;
  const events = found.events ?? [];
  const payloadOf = (type: string) =>
    events.find((e) => e.type === type)?.payload as Record<string, unknown> | undefined;
  const model = str(r.servedModel) ?? str(r.requestedModel) ?? "?";
  const cost = r.cost === null ? "unpriced" : dollars(r.cost);
  return {
    label: `Turn ${short(String(r.id))} · ${model} · ${cost}`,
    fields: {
      status: r.status,
      model: r.requestedModel,
      served: r.servedModel ? `${r.servedAdapter ?? r.servedProvider ?? "?"}/${r.servedModel}` : null,
      fallback: r.fallbackIndex ? `candidate ${r.fallbackIndex} answered` : null,
      started: r.startedAt,
      source: r.source,
      caller: r.caller,
      tokens: `input ${r.inputTokens} (cached ${r.cachedInputTokens}), output ${r.outputTokens}, reasoning ${r.reasoningTokens}`,
      cost: r.cost === null ? `unpriced (${r.costStatus})` : `${r.cost} USD (${r.costStatus})`,
      latency: r.latencyMs === null ? null : `${r.latencyMs} ms (first token ${r.firstTokenMs ?? "?"} ms)`,
      rounds: r.rounds,
      tools: toolTrace(r.toolTrace),
      error: r.errorClass ? `${r.errorClass}: ${r.errorMessage ?? ""}` : null,
      prompt: r.prompt,
      endUser: r.endUser,
      tags: r.tagList,
      conversation: r.conversationId,
      message: clip(payloadOf("request")?.message, 400),
      answer: clip(payloadOf("answer")?.text, 400),
      id: r.id,
    },
  };
}

const toolTrace = (trace: unknown): string | null => {
  if (!Array.isArray(trace) || !trace.length) return null;
  return (trace as { name: string; ok: boolean; durationMs: number; error?: string }[])
    .map((t) => `${t.name} (${t.ok ? "ok" : `failed: ${t.error ?? "error"}`}, ${t.durationMs} ms)`)
    .join(", ");
};

/** A turn's audit trail, summarised, for whoever may open the audit page. `id`: the turn's, or one of its events'. */
async function auditTurnSummary({ db, auth }: ContextInput, id: string): Promise<ContextSummary> {
  const { provider, ctx } = openPage("agent-audit", auth);
  const tenantId = ctx.tenantId!;
  const replay = await turnReplay(db, { tenantId, turnId: uuidOr404("turn", id) }).catch(
    async (error: unknown) => {
      if (!(error instanceof AppError) || error.code !== "not_found") throw error;
      // The audit page's rows are events: its detail names their turn.
      const event = await provider.detail(ctx, id);
      if (!event) throw notFound("turn");
      return turnReplay(db, { tenantId, turnId: String(event.row.turnId) });
    },
  );
  const { turn, events } = replay;
  const tools = [...new Set(events.filter((e) => e.type === "tool_call").map((e) => String(e.payload.name)))];
  const errors = events.filter(
    (e) => e.type === "error" || (e.type === "tool_result" && e.payload.ok === false),
  ).length;
  const guardrails = events.filter((e) => e.type === "guardrail").map((e) => String(e.payload.code));
  const shown = events.slice(0, 30).map((e) => `${e.seq} ${e.type}${eventDetail(e.type, e.payload)}`);
  if (events.length > shown.length) shown.push(`…and ${events.length - shown.length} more events`);
  return {
    label: `Audit trail ${short(turn.id)} · ${events.length} events`,
    fields: {
      status: turn.status,
      model: turn.servedModel ?? turn.requestedModel,
      started: turn.startedAt,
      caller: turn.apiKeyName ?? turn.userEmail,
      order: events.map((e) => e.type).join(" → "),
      tools: tools.join(", ") || "none",
      errors,
      guardrails: guardrails.join(", ") || "none",
      events: shown.join("\n"),
      turn: turn.id,
    },
  };
}

/** One event's gist: what was asked, which tool with what, how it ended; never the whole payload. */
function eventDetail(type: string, p: Record<string, unknown>): string {
  switch (type) {
    case "request":
      return `: "${clip(p.message, 160)}"${p.replaces ? " (replaces an earlier turn)" : ""}`;
    case "model_call": {
      const usage = p.usage as { inputTokens?: number; outputTokens?: number } | null;
      const tokens = usage ? `, ${usage.inputTokens ?? 0} in / ${usage.outputTokens ?? 0} out` : "";
      const error = p.error ? `, ${(p.error as { class?: string }).class ?? "error"}` : "";
      return `: ${p.servedModel ?? "?"} ${p.outcome ?? ""}${tokens}${error}`;
    }
    case "tool_call":
      return `: ${p.name} ${clip(JSON.stringify(p.args ?? {}), 120)}`;
    case "tool_result":
      return `: ${p.name} ${p.ok ? "ok" : `failed ${clip(p.result, 120)}`}`;
    case "guardrail":
      return `: ${p.code} ${clip(p.message, 120)}`;
    case "error":
      return `: ${p.class} ${clip(p.message, 120)}`;
    case "fallback":
    case "stop":
      return `: ${clip(p.message ?? p.reason, 120)}`;
    case "answer":
      return `: "${clip(p.text, 160)}"`;
    default:
      return "";
  }
}

/**
 * A prompt version, for every member (they read prompts). `id`: `name@version`, `name@label`, `name` (its
 * production label), or the version's uuid.
 */
async function promptVersionSummary({ db, auth }: ContextInput, id: string): Promise<ContextSummary> {
  const { tenantId } = promptAccess(auth);
  const { name, ref } = await promptRef(db, tenantId, id);
  const v = await findVersion(db, tenantId, name, ref);
  if (!v) throw notFound("prompt version");
  const template =
    v.type === "chat" ? (v.messages ?? []).map((m) => `[${m.role}] ${m.content}`).join("\n") : (v.text ?? "");
  return {
    label: `Prompt ${v.name} v${v.version}`,
    fields: {
      name: v.name,
      version: v.version,
      labels: v.labels.join(", ") || "none",
      type: v.type,
      config: Object.keys(v.config).length ? v.config : null,
      variables: v.variables.join(", ") || null,
      note: v.message,
      created: `${v.createdAt.toISOString()} by ${v.createdBy}`,
      archived: v.archived ? "yes" : null,
      template,
    },
  };
}

async function promptRef(
  db: Database,
  tenantId: string,
  id: string,
): Promise<{ name: string; ref: VersionRef }> {
  if (isUuid(id)) {
    const [row] = await db
      .select({ name: prompt.name, version: promptVersion.version })
      .from(promptVersion)
      .innerJoin(prompt, and(eq(prompt.id, promptVersion.promptId), eq(prompt.tenantId, tenantId)))
      .where(and(eq(promptVersion.tenantId, tenantId), eq(promptVersion.id, id)))
      .limit(1);
    if (!row) throw notFound("prompt version");
    return { name: row.name, ref: { version: row.version } };
  }
  const at = id.lastIndexOf("@");
  if (at < 0) return { name: id, ref: {} };
  const name = id.slice(0, at);
  const after = id.slice(at + 1);
  return { name, ref: /^\d{1,9}$/.test(after) ? { version: Number(after) } : { label: after } };
}

/**
 * An evaluation run's item, for tenant admins and prompt editors (like the evaluation pages). `id`: the run item's
 * id, or `runId:itemId[:targetIndex]` (what the run page shows).
 */
async function evalItemSummary({ db, auth }: ContextInput, id: string): Promise<ContextSummary> {
  const { tenantId } = evalAccess(auth);
  const [runId, itemId, targetIndex = "0"] = id.split(":");
  const where = isUuid(id)
    ? eq(evalRunItem.id, id)
    : runId && itemId && isUuid(runId) && isUuid(itemId) && /^\d{1,4}$/.test(targetIndex)
      ? and(
          eq(evalRunItem.runId, runId),
          eq(evalRunItem.itemId, itemId),
          eq(evalRunItem.targetIndex, Number(targetIndex)),
        )
      : null;
  if (!where) throw notFound("evaluation item");
  const [found] = await db
    .select({ item: evalRunItem, run: evalRun, dataset: evalDataset.name })
    .from(evalRunItem)
    .innerJoin(evalRun, and(eq(evalRun.id, evalRunItem.runId), eq(evalRun.tenantId, tenantId)))
    .innerJoin(evalDataset, eq(evalDataset.id, evalRun.datasetId))
    .where(and(eq(evalRunItem.tenantId, tenantId), where))
    .limit(1);
  if (!found) throw notFound("evaluation item");
  const { item, run } = found;
  const target = run.targets[item.targetIndex];
  const targetText = target
    ? `${target.model}${target.prompt ? ` with prompt ${target.prompt.name} v${target.prompt.version ?? "?"}` : ""}`
    : `target ${item.targetIndex}`;
  const verdict = item.passed === null ? item.status : item.passed ? "passed" : "failed";
  const input =
    "messages" in item.input
      ? item.input.messages.map((m) => `[${m.role}] ${m.content}`).join("\n")
      : item.input.variables;
  return {
    label: `Eval item ${short(item.itemId)} · ${target?.model ?? "?"} · ${verdict}`,
    fields: {
      run: `${run.name ?? short(run.id)} (dataset ${found.dataset}, ${run.status})`,
      target: targetText,
      status: item.status,
      verdict,
      score: item.score,
      scores: item.scores
        ?.map((s) => `${s.type}: ${s.passed ? "pass" : "fail"} ${s.score} (${s.reason})`)
        .join("\n"),
      input,
      expected: item.expected,
      output: item.output,
      error: item.error,
      latency: item.latencyMs === null ? null : `${item.latencyMs} ms`,
      cost: item.cost === null ? null : `${item.cost} USD`,
      turn: item.turnId,
      runId: run.id,
      itemId: item.itemId,
    },
  };
}

/** A demo order by its number, for every member of the tenant; there is none where the demo is off. */
async function orderSummary({ db, tenant }: ContextInput, id: string): Promise<ContextSummary> {
  const order = container().demo ? await findDemoOrder(db, tenant.id, id) : null;
  if (!order) throw notFound(`order ${id}`);
  return {
    label: `Order ${order.number}`,
    fields: {
      customer: order.customer,
      status: order.status,
      total: `${order.totalUsd} USD`,
      date: order.createdAt.toISOString(),
      number: order.number,
    },
  };
}

const uuidOr404 = (what: string, id: string) => {
  if (!isUuid(id)) throw notFound(what);
  return id;
};

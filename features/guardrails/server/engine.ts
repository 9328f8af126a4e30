import "server-only";
import type { BlockList } from "node:net";
import type { Database } from "@/db";
import { describeRef, findVersion, templateOf } from "@/features/prompts/server";
import { type Resolver, resolveAllowed } from "@/lib/agent/toolsets/web/net-guard";
import { contentDecoder, pinnedRequest } from "@/lib/agent/toolsets/web/pinned-client";
import { checkJsonSchema, compileCheck } from "@/lib/guardrails/checks";
import { createGuardrailEngine, type GuardrailEngine } from "@/lib/guardrails/engine";
import { createModelCheck } from "@/lib/guardrails/model-check";
import { createWebhookCheck, type WebhookPost } from "@/lib/guardrails/webhook";
import { type MeteredCallDeps, meteredCall } from "@/lib/pipeline/metered-call";

export type GuardrailEngineOptions = {
  /** Ranges the operator opens despite the outbound address policy (WEB_FETCH_ALLOW): webhooks go through it. */
  allow: BlockList;
  /** Host name resolution; tests inject one. */
  resolver?: Resolver;
  /** The governed path a model check's judge call takes (its ledger row has source `guardrail`). */
  metered: () => MeteredCallDeps;
  /** Where a judge's stored prompt (`promptRef`) is read. */
  db: () => Promise<Database>;
};

/**
 * The process's guardrail engine: the deterministic checks (lib/guardrails/checks), webhooks through the outbound
 * address guard (a tenant's URL cannot reach the gateway's own network, and DNS cannot swap the checked address),
 * and LLM judges through the tenant's own alias as metered calls (budgets apply; each judge call is a ledger row).
 */
export function createTenantGuardrailEngine(options: GuardrailEngineOptions): GuardrailEngine {
  const webhook = createWebhookCheck({ post: guardedPost(options), now: () => Date.now() });
  return createGuardrailEngine({
    compile: compileCheck,
    jsonSchema: checkJsonSchema,
    webhook,
    model: async (check, input) => {
      const caller = input.caller;
      if (!caller?.userId) throw new Error("a model check needs the call's tenant and user");
      const who = {
        tenantId: caller.tenantId,
        userId: caller.userId,
        apiKeyId: caller.apiKeyId,
        source: "guardrail" as const,
      };
      const judge = createModelCheck({
        complete: async (alias, messages, signal) => {
          const result = await meteredCall(
            options.metered(),
            who,
            { model: alias, messages, temperature: 0, maxTokens: 200 },
            { signal },
          );
          if (result.status !== "success")
            throw new Error(`the judge's call ${result.status}: ${result.error?.message ?? "no answer"}`);
          return { text: result.answer };
        },
        moderate: (alias, text, signal) => moderate(options.metered(), who, alias, text, signal),
      });
      const instructions = check.promptRef
        ? await storedInstructions(await options.db(), caller.tenantId, check.promptRef)
        : check.prompt;
      return judge({ ...check, prompt: instructions }, input);
    },
    now: () => performance.now(),
  });
}

/** One POST to a tenant's webhook: the address checked and pinned, the answer read to `maxBytes` at most. */
function guardedPost(options: GuardrailEngineOptions): WebhookPost {
  return async (url, body, headers, signal, maxBytes) => {
    const target = new URL(url);
    const checked = await resolveAllowed(target.hostname, {
      allow: options.allow,
      resolver: options.resolver,
      signal,
    });
    const res = await pinnedRequest(target, checked, signal, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      body,
    });
    const decoder = contentDecoder(res);
    const stream = decoder ? res.pipe(decoder) : res;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        throw new Error(`the webhook's answer is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode ?? 502, text: Buffer.concat(chunks).toString("utf8") };
  };
}

/**
 * A moderation model's verdict through the tenant's alias, as a metered call of its own (source `guardrail`): the
 * alias must serve OpenAI's moderations; `flagged` and the categories that are true come back.
 */
async function moderate(
  deps: MeteredCallDeps,
  who: Parameters<typeof meteredCall>[1],
  alias: string,
  text: string,
  signal: AbortSignal,
): Promise<{ flagged: boolean; categories: string[] }> {
  const body = { model: alias, input: text };
  const result = await meteredCall(
    deps,
    who,
    { model: alias, messages: [{ role: "user", content: text }] },
    { signal, wire: { format: "openai-moderations", alias, body, stream: false, headers: {} } },
  );
  if (result.status !== "success")
    throw new Error(`the moderation call ${result.status}: ${result.error?.message ?? "no answer"}`);
  let first: { flagged?: unknown; categories?: Record<string, unknown> } | undefined;
  try {
    first = (JSON.parse(result.answer) as { results?: (typeof first)[] }).results?.[0];
  } catch {
    first = undefined;
  }
  if (!first || typeof first.flagged !== "boolean") throw new Error("the moderation answer has no verdict");
  const categories = Object.entries(first.categories ?? {})
    .filter(([, on]) => on === true)
    .map(([name]) => name);
  return { flagged: first.flagged, categories };
}

/** A judge's instructions from the prompt store: the version's system messages (or its text). */
async function storedInstructions(
  db: Database,
  tenantId: string,
  ref: { name: string; version?: number; label?: string },
): Promise<string> {
  const found = await findVersion(db, tenantId, ref.name, ref);
  if (!found) throw new Error(`the judge's ${describeRef(ref.name, ref)} does not exist`);
  const template = templateOf(found);
  return template.type === "text"
    ? template.text
    : template.messages
        .filter((message) => message.role === "system")
        .map((message) => message.content)
        .join("\n\n");
}

import "server-only";
import type { Database } from "@/db";
import { log } from "@/lib/core/process/log";
import type { TurnPrompt } from "@/lib/turns/observer";
import { ASSISTANT_PROMPT, findVersion, templateOf } from "./store";
import { compile, MissingVariablesError } from "./template";

export type AssistantPrompt = { system: string; prompt: TurnPrompt; model?: string; toolSets?: string[] };

/**
 * The drawer's system prompt from the tenant's `assistant` prompt at its `production` label, compiled with the
 * variables the drawer knows (`tenant`, `user`, `date`); null when the tenant has none, so the built-in text
 * answers. A version that needs another variable is skipped (logged), never sent with its placeholders.
 */
export async function assistantPrompt(
  db: Database,
  tenantId: string,
  variables: { tenant: string; user: string },
): Promise<AssistantPrompt | null> {
  const version = await findVersion(db, tenantId, ASSISTANT_PROMPT, {});
  if (!version || version.archived) return null;
  try {
    const compiled = compile(templateOf(version), {
      ...variables,
      date: new Date().toISOString().slice(0, 10),
    });
    const system =
      compiled.type === "text"
        ? compiled.text
        : compiled.messages
            .filter((m) => m.role === "system")
            .map((m) => m.content)
            .join("\n\n");
    return {
      system,
      prompt: { name: version.name, version: version.version },
      model: version.config.model,
      toolSets: version.config.toolSets,
    };
  } catch (error) {
    if (!(error instanceof MissingVariablesError)) throw error;
    log.warn(
      { tenantId, version: version.version, missing: error.missing },
      "the assistant prompt needs variables the drawer does not have; using the built-in prompt",
    );
    return null;
  }
}

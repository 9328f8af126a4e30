import "server-only";
import { z } from "zod";
import type { MembershipRole } from "@/db/schema";
import type { CostStatus, ToolSchema, Usage } from "@/lib/gateway/types";
import type { StoredToolCall } from "@/lib/turns/conversation";

/** Who and where a tool runs for. Every tool query is scoped by `tenantId`. */
export type ToolContext = {
  tenantId: string;
  userId: string;
  role: MembershipRole;
  conversationId: string;
  turnId: string;
  /** Aborts on Stop and on the tool's own timeout. */
  signal: AbortSignal;
  /** Adds a display message to the conversation (an image, a file card…); the model does not see it. */
  emit(message: { content: string; data?: Record<string, unknown> }): Promise<void>;
  /** Adds tokens spent on the user's behalf (a sub-agent) to this turn's usage and cost. */
  addUsage(usage: Usage, cost: string | null, costStatus?: CostStatus): void;
};

export type ToolDefinition<P extends z.ZodObject = z.ZodObject> = {
  name: string;
  description: string;
  /** Groups tools in the UI and the audit. */
  category?: string;
  /** Hidden tools are never offered to the model (internal helpers, or tools switched off). */
  hidden?: boolean;
  /** Roles allowed to call it; omitted: every member. */
  roles?: MembershipRole[];
  /** Words that make the offline demo model pick this tool. */
  keywords?: string[];
  /** Per-tool timeout; the agent's default (30 s) otherwise. */
  timeoutMs?: number;
  /**
   * What it needs besides its tenant: a conversation (state kept per conversation: the plan, tasks, schedules) or
   * a signed-in user (their notes; model calls made and metered as them). /mcp, where a call has only an API key,
   * does not offer such tools.
   */
  needs?: "conversation" | "user";
  /** The turn pauses before running it until the user approves (Approve / Deny in the drawer; no answer = deny). */
  requiresConfirmation?: boolean;
  parameters: P;
  execute(args: z.output<P>, ctx: ToolContext): Promise<unknown>;
};

export type Tool = ToolDefinition & { schema: ToolSchema };

/** Declares a tool; its JSON Schema comes from the zod parameters. */
export function defineTool<P extends z.ZodObject>(definition: ToolDefinition<P>): Tool {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
    throw new Error(
      `tool name "${definition.name}" must be 1-64 letters, digits, _ or - (what every provider accepts)`,
    );
  }
  return {
    ...(definition as unknown as ToolDefinition),
    schema: {
      name: definition.name,
      description: definition.description,
      parameters: toolJsonSchema(definition.parameters),
      keywords: definition.keywords,
    },
  };
}

/**
 * The JSON Schema of a tool's parameters: required from the types, descriptions, enums, nested objects and
 * arrays in full; a recursive type becomes a reference the providers accept, never an infinite schema.
 */
export function toolJsonSchema(parameters: z.ZodObject): Record<string, unknown> {
  const schema = z.toJSONSchema(parameters, {
    target: "draft-7",
    io: "input",
    unrepresentable: "any",
    cycles: "ref",
  }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** Validates a model's arguments; the error names each wrong field so the model can correct itself. */
export function parseToolArgs(
  tool: Tool,
  args: unknown,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map(
    (i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`,
  );
  return { ok: false, error: `invalid arguments for ${tool.name}: ${problems.join("; ")}` };
}

/**
 * A group of tools with their prompt: `prompt()` joins the system prompt when the agent is built,
 * `iterationInjection()` is placed before the user's message every round (null: nothing), `copy()` gives a
 * conversation its own state, `reset()` clears it.
 */
export abstract class ToolSet {
  abstract readonly name: string;
  abstract tools(): Tool[];
  prompt(): string | null {
    return null;
  }
  iterationInjection(): string | null {
    return null;
  }
  /** Rebuilds per-conversation state from the stored history (so state survives restarts and replicas). */
  restore(_history: StoredToolCall[]): void {}
  copy(): ToolSet {
    return this;
  }
  reset(): void {}
}

/** A tool set that only adds to the system prompt. */
export class PromptToolSet extends ToolSet {
  constructor(
    readonly name: string,
    private readonly text: string,
  ) {
    super();
  }
  tools(): Tool[] {
    return [];
  }
  override prompt(): string {
    return this.text;
  }
}

/** A stateless tool set over a fixed list of tools. */
export class StaticToolSet extends ToolSet {
  constructor(
    readonly name: string,
    private readonly list: Tool[],
    private readonly promptText: string | null = null,
  ) {
    super();
  }
  tools(): Tool[] {
    return this.list;
  }
  override prompt(): string | null {
    return this.promptText;
  }
}

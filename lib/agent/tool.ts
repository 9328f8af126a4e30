import "server-only";
import { Ajv } from "ajv";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { z } from "zod";
import type { MembershipRole } from "@/db/schema";
import type { CostStatus, ToolSchema, Usage } from "@/lib/gateway/types";
import type { StoredToolCall } from "@/lib/turns/conversation";
import type { AddedMessageSummary, ToolMessage } from "./tool-messages";
import type { ToolUse } from "./tool-uses";

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
  /**
   * Adds a user-role message of text and images that the model reads in the next round, after this round's tool
   * results; it is stored in the conversation and shown in the drawer. One per call, and only when the call ends
   * well. Rejects (the call's error result, unless the tool handles it) when the message is invalid, too big, has
   * images the turn's model cannot read, or names a file that is not this conversation's.
   */
  addMessage(message: ToolMessage): Promise<AddedMessageSummary>;
  /** Adds tokens spent on the user's behalf (a sub-agent) to this turn's usage and cost. */
  addUsage(usage: Usage, cost: string | null, costStatus?: CostStatus): void;
  /** Notes what the call used that the turn's ledger row names (a skill it loaded, by name and version). */
  noteUse(use: ToolUse): void;
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
  /**
   * It gives the model images to look at: offered only when the turn's model alias reads images, and a call of it
   * with any other alias is refused with an error naming the alias.
   */
  needsVision?: boolean;
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
  /** Whether the tenant has it on now (a tenant setting); false: not offered, and a call of it is refused. */
  available?: (tenantId: string) => Promise<boolean>;
  /**
   * Its results carry text others control (web pages, MCP servers' answers, ledger rows written by API callers): a
   * turn that read one must not send data out without the user's yes (see `sendsTo`).
   */
  readsOutsideText?: boolean;
  /**
   * It sends its arguments out of Tollgate: where to (a host), for the confirmation card; null when this call's
   * arguments send nothing out. In a turn that carries outside text such a call waits for the user's Approve /
   * Deny, whatever `requiresConfirmation` says.
   */
  sendsTo?: (args: Record<string, unknown>) => string | null;
  parameters: P;
  execute(args: z.output<P>, ctx: ToolContext): Promise<unknown>;
};

export type Tool = ToolDefinition & {
  schema: ToolSchema;
  /** A tool defined from a raw JSON Schema (defineJsonTool): what is wrong with the arguments, or null. */
  checkArgs?: (args: Record<string, unknown>) => string[] | null;
};

/** A tool whose parameters are a JSON Schema given as data (an MCP server's tool), not a zod object. */
export type JsonToolDefinition = Omit<ToolDefinition, "parameters" | "execute"> & {
  /** Offered to the model as it is; the model's arguments are checked against it (ajv) before `execute`. */
  inputSchema: Record<string, unknown>;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
};

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
 * Declares a tool from a JSON Schema: offered with that schema, its arguments checked by ajv (compiled on the
 * first call); a schema ajv cannot compile only requires an object, and the tool's own server checks the rest.
 */
export function defineJsonTool(definition: JsonToolDefinition): Tool {
  const { inputSchema, execute, ...rest } = definition;
  // Offered without `$schema` (as zod tools are); the dialect is kept for the validator.
  const { $schema, ...offered } = inputSchema;
  const parameters: Record<string, unknown> = { type: "object", properties: {}, ...offered };
  const tool = defineTool({
    ...rest,
    parameters: z.looseObject({}),
    execute: (args, ctx) => execute(args, ctx),
  });
  return {
    ...tool,
    schema: { ...tool.schema, parameters },
    checkArgs: (args) => {
      const validate = argsValidator({ ...parameters, $schema });
      if (!validate || validate(args)) return null;
      return (validate.errors ?? []).slice(0, 5).map(argumentProblem);
    },
  };
}

// Draft 2020-12 is MCP's default dialect; a schema that names draft-07 (or uses its forms) gets draft-07.
const ajv2020 = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const ajv07 = new Ajv({ allErrors: true, strict: false, validateFormats: false });

// Compiled validators by schema text: tool sets are rebuilt often, their schemas rarely change. A pure memo
// (a copy per bundle only costs a compile), bounded.
const validators = new Map<string, ValidateFunction | null>();
const MAX_VALIDATORS = 500;

function argsValidator(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  const known = validators.get(key);
  if (known !== undefined) return known;
  const compiled = compileArgsSchema(schema);
  validators.set(key, compiled);
  if (validators.size > MAX_VALIDATORS) validators.delete(validators.keys().next().value!);
  return compiled;
}

function compileArgsSchema(schema: Record<string, unknown>): ValidateFunction | null {
  // A server's `pattern` would run its regular expression on our event loop (the server checks those itself);
  // an `$id` would be registered in ajv's shared table and clash with the next compile of the same schema.
  const safe = withoutKeys(schema) as Record<string, unknown>;
  const dialect = typeof safe.$schema === "string" ? safe.$schema : "";
  // ajv resolves `$schema` by id and refuses one it does not know: the dialect only picks the validator.
  delete safe.$schema;
  const order = /draft-0[4-7]/.test(dialect) ? [ajv07, ajv2020] : [ajv2020, ajv07];
  for (const ajv of order) {
    try {
      const validate = ajv.compile(safe);
      // ajv keeps every compiled schema; the memo above keeps what is needed.
      ajv.removeSchema(safe);
      return validate;
    } catch {}
  }
  return null;
}

function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !((key === "pattern" || key === "$id") && typeof v === "string"))
      .map(([key, v]) => [key, withoutKeys(v)]),
  );
}

function argumentProblem(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, "").split("/").filter(Boolean).join(".");
  const at = (field: string) => (path ? `${path}.${field}` : field);
  if (error.keyword === "required")
    return `${at((error.params as { missingProperty: string }).missingProperty)}: required`;
  if (error.keyword === "additionalProperties")
    return `${at((error.params as { additionalProperty: string }).additionalProperty)}: not a known field`;
  if (error.keyword === "enum")
    return `${path || "(arguments)"}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${path || "(arguments)"}: ${error.message ?? "is invalid"}`;
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
  const problems = parsed.success
    ? (tool.checkArgs?.(parsed.data as Record<string, unknown>) ?? [])
    : parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`);
  if (parsed.success && !problems.length) return { ok: true, value: parsed.data };
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

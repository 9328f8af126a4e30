/**
 * The tenant's guardrails where text meets tools: `tool_input` rules over a tool call's arguments before the tool
 * runs (block: an `{"error"}` result, redact: the tool gets the redacted arguments), and `input` injection rules over
 * the descriptions of the tenant's MCP tools before they are offered to a model (a block keeps the tool back).
 */
import type { ToolCall } from "@/lib/gateway/types";
import type { GuardrailCaller, GuardrailEngine } from "@/lib/guardrails/engine";
import { rulesFor } from "@/lib/guardrails/scope";
import type { BlockedBy, StageResult, TextSegment } from "@/lib/guardrails/stage-result";
import type { GuardrailPolicy, GuardrailRule, GuardrailSource } from "@/lib/guardrails/types";
import type { AgentEvent } from "@/lib/turns/events";
import type { Tool } from "./tool";

/** What applies a tenant's guardrails to tools: its policy (cached by the caller) and the process's engine. */
export type ToolGuardrails = {
  policy(tenantId: string): Promise<GuardrailPolicy>;
  engine: GuardrailEngine;
};

/** Whose call it is, as a rule's scope and a model check see it. */
export type ToolCallScope = {
  tenantId: string;
  userId?: string;
  keyId?: string;
  alias?: string;
  source: GuardrailSource;
};

type GuardrailEvent = Extract<AgentEvent, { type: "guardrail" }>;

/** What the `tool_input` stage made of a call: run it (with these arguments) or not (with this message). */
export type ToolInputVerdict =
  | { run: true; args: Record<string, unknown>; events: GuardrailEvent[] }
  | { run: false; message: string; events: GuardrailEvent[] };

/** Checks a call's (validated) arguments before its tool runs. */
export type ToolInputGuard = (call: ToolCall, args: Record<string, unknown>) => Promise<ToolInputVerdict>;

const callerOf = (scope: ToolCallScope): GuardrailCaller => ({
  tenantId: scope.tenantId,
  userId: scope.userId ?? null,
  apiKeyId: scope.keyId ?? null,
});

function eventsOf(result: Pick<StageResult, "events">, tool: string, about = ""): GuardrailEvent[] {
  return result.events.map((event) => ({
    type: "guardrail",
    code: event.code,
    tool,
    message: `${about}${event.message}`,
  }));
}

function blockedMessage(by: BlockedBy): string {
  const what =
    by.entity === "check_failed"
      ? "its check on the tool's arguments could not run."
      : `the tool's arguments contain ${by.entity.replace(/_/g, " ")}.`;
  return `Blocked by the guardrail "${by.ruleName}" (rule ${by.ruleId}): ${what}`;
}

/** The `tool_input` guard for calls made in `scope`; with no rule in scope, every call runs as it came. */
export function toolInputGuard(guardrails: ToolGuardrails, scope: ToolCallScope): ToolInputGuard {
  return async (call, args) => {
    let rules: GuardrailRule[];
    try {
      rules = rulesFor(await guardrails.policy(scope.tenantId), "tool_input", scope);
    } catch (error) {
      // As in the pipeline: a policy that cannot be read refuses, never passes unchecked.
      const reason = error instanceof Error ? error.message : String(error);
      const message = `Blocked: the guardrail policy could not be read (${reason}).`;
      return {
        run: false,
        message,
        events: [{ type: "guardrail", code: "guardrail_check_failed", tool: call.name, message }],
      };
    }
    if (!rules.length) return { run: true, args, events: [] };
    const { engine } = guardrails;
    const caller = callerOf(scope);
    const text = JSON.stringify(args);
    const result = await engine.evaluate("tool_input", [{ text, origin: "tool_input" }], rules, { caller });
    const events = eventsOf(result, call.name);
    if (result.blockedBy) return { run: false, message: blockedMessage(result.blockedBy), events };
    if (result.outcome !== "redacted") return { run: true, args, events };
    const whole = parsedObject(result.texts[0]!);
    if (whole) return { run: true, args: whole, events };
    // The redaction broke the JSON (a span across quotes): redact each string value on its own instead.
    const redacting = rules.filter((_, index) => result.rules[index]?.action === "redact");
    const strings = stringLeaves(args);
    const again = await engine.evaluate(
      "tool_input",
      strings.map((leaf): TextSegment => ({ text: leaf.text, origin: "tool_input" })),
      redacting,
      { caller },
    );
    // What was found in the whole text but in no single value cannot be redacted: the call does not run with it.
    if (again.blockedBy || !again.rules.some((rule) => rule.hits.length))
      return {
        run: false,
        message: `Blocked by the guardrail "${redacting[0]!.name}" (rule ${redacting[0]!.id}): its redaction could not be applied to the tool's arguments.`,
        events,
      };
    return { run: true, args: withStrings(args, again.texts), events };
  };
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The string values of `value`, depth first. */
function stringLeaves(value: unknown, out: { text: string }[] = []): { text: string }[] {
  if (typeof value === "string") out.push({ text: value });
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, out);
  else if (value && typeof value === "object")
    for (const item of Object.values(value)) stringLeaves(item, out);
  return out;
}

/** `value` with its string values replaced, in `stringLeaves` order. */
function withStrings<T>(value: T, texts: readonly string[]): T {
  let index = 0;
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return texts[index++] ?? node;
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item)]));
    return node;
  };
  return walk(value) as T;
}

/** Which of the offered tools a screen kept back, and the events saying why (or what it only flagged). */
export type DescriptionScreenResult = { withheld: Set<string>; events: GuardrailEvent[] };

type DescriptionVerdict = { blocked: boolean; events: GuardrailEvent[] };

/**
 * Runs the tenant's `input` injection rules over MCP tools' descriptions (text from outside, read by the model as
 * instructions). Verdicts are kept per (tool, description, rules) for the process, so a turn costs map lookups.
 */
export class DescriptionScreen {
  readonly #verdicts = new Map<string, DescriptionVerdict>();
  constructor(
    private readonly guardrails: ToolGuardrails,
    private readonly capacity = 5_000,
  ) {}

  async screen(tools: readonly Tool[], scope: ToolCallScope): Promise<DescriptionScreenResult> {
    const result: DescriptionScreenResult = { withheld: new Set(), events: [] };
    if (!tools.length) return result;
    let rules: GuardrailRule[];
    try {
      rules = rulesFor(await this.guardrails.policy(scope.tenantId), "input", scope).filter(
        (rule) => rule.check.type === "injection",
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      for (const tool of tools) result.withheld.add(tool.name);
      result.events.push({
        type: "guardrail",
        code: "guardrail_check_failed",
        message: `The MCP tools were not offered: the guardrail policy could not be read (${reason}).`,
      });
      return result;
    }
    if (!rules.length) return result;
    const rulesKey = JSON.stringify(rules.map((rule) => [rule.id, rule.action, rule.onError, rule.check]));
    for (const tool of tools) {
      const verdict = await this.verdict(tool, rules, rulesKey, scope);
      if (verdict.blocked) result.withheld.add(tool.name);
      result.events.push(...verdict.events);
    }
    return result;
  }

  private async verdict(
    tool: Tool,
    rules: GuardrailRule[],
    rulesKey: string,
    scope: ToolCallScope,
  ): Promise<DescriptionVerdict> {
    const key = `${tool.name}\u0000${tool.description}\u0000${rulesKey}`;
    const cached = this.#verdicts.get(key);
    if (cached) return cached;
    const result = await this.guardrails.engine.evaluate(
      "input",
      [{ text: tool.description, origin: "mcp_description" }],
      rules,
      { caller: callerOf(scope) },
    );
    const by = result.blockedBy;
    const events: GuardrailEvent[] = by
      ? [
          {
            type: "guardrail",
            code: by.entity === "check_failed" ? "guardrail_check_failed" : "guardrail_blocked",
            tool: tool.name,
            message: `${tool.name} was not offered to the model: the guardrail "${by.ruleName}" (rule ${by.ruleId}) blocked its description (${by.entity.replace(/_/g, " ")}).`,
          },
        ]
      : eventsOf(result, tool.name, `${tool.name}'s description: `);
    const verdict = { blocked: by !== undefined, events };
    // A check that could not run is asked again next time; a verdict is kept (the oldest dropped past capacity).
    if (!result.rules.some((rule) => rule.error)) {
      this.#verdicts.set(key, verdict);
      if (this.#verdicts.size > this.capacity) this.#verdicts.delete(this.#verdicts.keys().next().value!);
    }
    return verdict;
  }
}

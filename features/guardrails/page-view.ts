// The guardrails page's pure logic: a rule as the list holds it, as its form edits it (text fields), and back;
// summaries, moves and the server's messages per rule. Browser-safe; unit-tested.
import type {
  GuardrailCheck,
  GuardrailCheckType,
  GuardrailRule,
  GuardrailSource,
  PiiEntity,
} from "@/lib/guardrails/types";
import { type GuardrailRuleView, guardrailRuleInput } from "./contracts";

/** A rule in the page's list: as the PUT sends it (a webhook's secret only when typed), and whether one is stored. */
export type ListedRule = { rule: GuardrailRule; secretSet: boolean };

export function listedOf(view: GuardrailRuleView): ListedRule {
  const { check, ...rest } = view;
  if (check.type !== "webhook") return { rule: { ...rest, check }, secretSet: false };
  const { secretSet, ...hook } = check;
  return { rule: { ...rest, check: hook }, secretSet };
}

/** Every field of the rule form as the inputs hold it. */
export type RuleDraft = {
  id: string;
  name: string;
  stage: GuardrailRule["stage"];
  action: GuardrailRule["action"];
  onError: GuardrailRule["onError"];
  enabled: boolean;
  reversible: boolean;
  type: GuardrailCheckType;
  entities: PiiEntity[];
  pattern: string;
  flags: string;
  label: string;
  terms: string;
  schema: string;
  alias: string;
  prompt: string;
  /** A stored prompt's name (the prompt store), for the judge's instructions; its production version. */
  promptName: string;
  moderation: boolean;
  url: string;
  secret: string;
  timeoutMs: string;
  aliases: string;
  sources: GuardrailSource[];
  /** Scope lists the form does not edit (API keys, users), kept as they were. */
  keys?: string[];
  users?: string[];
};

/** A fresh id for a new rule: from its name, made unique among `taken`. */
export function newRuleId(name: string, taken: readonly string[]): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "rule";
  let id = base;
  for (let n = 2; taken.includes(id); n++) id = `${base}-${n}`;
  return id;
}

export const emptyDraft = (): RuleDraft => ({
  id: "",
  name: "",
  stage: "input",
  action: "block",
  onError: "closed",
  enabled: true,
  reversible: false,
  type: "pii",
  entities: [],
  pattern: "",
  flags: "",
  label: "",
  terms: "",
  schema: "",
  alias: "",
  prompt: "",
  promptName: "",
  moderation: false,
  url: "",
  secret: "",
  timeoutMs: "",
  aliases: "",
  sources: [],
});

export function draftOf({ rule }: ListedRule): RuleDraft {
  const d: RuleDraft = {
    ...emptyDraft(),
    id: rule.id,
    name: rule.name,
    stage: rule.stage,
    action: rule.action,
    onError: rule.onError,
    enabled: rule.enabled !== false,
    reversible: rule.reversible === true,
    type: rule.check.type,
    aliases: (rule.scope?.aliases ?? []).join(", "),
    sources: rule.scope?.sources ?? [],
    keys: rule.scope?.keys,
    users: rule.scope?.users,
  };
  const c = rule.check;
  if (c.type === "pii") d.entities = c.entities ?? [];
  if (c.type === "regex")
    Object.assign(d, { pattern: c.pattern, flags: c.flags ?? "", label: c.label ?? "" });
  if (c.type === "deny_list") Object.assign(d, { terms: c.terms.join("\n"), label: c.label ?? "" });
  if (c.type === "json_schema") d.schema = c.schema ? JSON.stringify(c.schema, null, 2) : "";
  if (c.type === "model")
    Object.assign(d, {
      alias: c.alias,
      prompt: c.prompt ?? "",
      promptName: c.promptRef?.name ?? "",
      moderation: c.moderation === true,
    });
  if (c.type === "webhook") Object.assign(d, { url: c.url, timeoutMs: c.timeoutMs?.toString() ?? "" });
  return d;
}

const opt = (text: string) => (text.trim() ? text.trim() : undefined);

function checkOf(d: RuleDraft): GuardrailCheck | { problem: string } {
  switch (d.type) {
    case "pii":
      return d.entities.length ? { type: "pii", entities: d.entities } : { type: "pii" };
    case "secrets":
    case "injection":
      return { type: d.type };
    case "regex":
      return { type: "regex", pattern: d.pattern, flags: opt(d.flags), label: opt(d.label) };
    case "deny_list":
      return {
        type: "deny_list",
        terms: d.terms.split("\n").filter((t) => t.trim()),
        label: opt(d.label),
      };
    case "json_schema": {
      if (!d.schema.trim()) return { type: "json_schema" };
      try {
        const schema: unknown = JSON.parse(d.schema);
        if (typeof schema !== "object" || schema === null || Array.isArray(schema))
          return { problem: "an object" };
        return { type: "json_schema", schema: schema as Record<string, unknown> };
      } catch (error) {
        return { problem: error instanceof Error ? error.message : String(error) };
      }
    }
    case "model":
      return {
        type: "model",
        alias: d.alias.trim(),
        prompt: opt(d.prompt),
        promptRef: d.promptName.trim() ? { name: d.promptName.trim() } : undefined,
        moderation: d.moderation || undefined,
      };
    case "webhook":
      return {
        type: "webhook",
        url: d.url.trim(),
        secret: d.secret || undefined,
        timeoutMs: d.timeoutMs.trim() ? Number(d.timeoutMs) : undefined,
      };
  }
}

/** Drops the keys whose value is undefined, so what the form sends is what it shows. */
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The form field a contract path is about (["check", "terms", 3] → "terms"). */
export function draftFieldOf(path: readonly PropertyKey[]): string {
  const [head, next] = path;
  if (head === "check") return typeof next === "string" ? next : "type";
  if (head === "scope") return typeof next === "string" ? next : "aliases";
  return typeof head === "string" ? head : "name";
}

export type DraftResult =
  | { ok: true; listed: ListedRule }
  | { ok: false; fields: Record<string, string[]>; schemaProblem?: string };

/** The rule a draft makes, checked by the contract; or the messages per form field. */
export function ruleOfDraft(d: RuleDraft, previous: ListedRule | null): DraftResult {
  const check = checkOf(d);
  if ("problem" in check) return { ok: false, fields: {}, schemaProblem: check.problem };
  const aliases = d.aliases
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  const scope = defined({
    aliases: aliases.length ? aliases : undefined,
    sources: d.sources.length ? d.sources : undefined,
    keys: d.keys,
    users: d.users,
  });
  const candidate = defined({
    id: d.id,
    name: d.name,
    stage: d.stage,
    check: defined(check),
    action: d.action,
    scope: Object.keys(scope).length ? scope : undefined,
    onError: d.onError,
    reversible: d.action === "redact" && d.reversible ? true : undefined,
    enabled: d.enabled,
  });
  const parsed = guardrailRuleInput.safeParse(candidate);
  if (!parsed.success) {
    const fields: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const field = draftFieldOf(issue.path);
      fields[field] = [...(fields[field] ?? []), issue.message];
    }
    return { ok: false, fields };
  }
  const keepsSecret = previous?.rule.id === d.id && previous.secretSet && d.type === "webhook";
  return { ok: true, listed: { rule: parsed.data, secretSet: keepsSecret || Boolean(d.secret) } };
}

/** The list with the rule at `index` moved one place up (-1) or down (+1); unchanged at the ends. */
export function moveRule<T>(rules: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= rules.length || to < 0 || to >= rules.length) return [...rules];
  const next = [...rules];
  [next[index], next[to]] = [next[to] as T, next[index] as T];
  return next;
}

/** The server's messages about the rules (`rules.3.check.pattern`), by rule index; the rest under -1. */
export function messagesByRule(fields: Record<string, string[]>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [path, messages] of Object.entries(fields)) {
    const m = /^rules\.(\d+)(?:\.(.+))?$/.exec(path);
    const index = m ? Number(m[1]) : -1;
    const said = messages.map((msg) => (m?.[2] ? `${m[2]}: ${msg}` : msg));
    out.set(index, [...(out.get(index) ?? []), ...said]);
  }
  return out;
}

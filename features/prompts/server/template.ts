/**
 * Prompt templates: `{{variable}}` placeholders in a chat prompt's messages or a text prompt's text. Pure, so the
 * browser (the editor's variable list, the playground) and the server compile alike.
 */

export type TemplateMessage = { role: "system" | "user" | "assistant"; content: string };
export type Template = { type: "chat"; messages: TemplateMessage[] } | { type: "text"; text: string };

/** A variable's name: a letter or underscore, then letters, digits, `_`, `-` or `.`; spaces inside braces are allowed. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

const textsOf = (template: Template): string[] =>
  template.type === "chat" ? template.messages.map((m) => m.content) : [template.text];

/** The variables a template uses, in order of first appearance, each once. */
export function variablesOf(template: Template): string[] {
  const seen = new Set<string>();
  for (const text of textsOf(template)) for (const m of text.matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

/** A template compiled with variables some of which it needed and did not get. */
export class MissingVariablesError extends Error {
  readonly code = "missing_variables";
  constructor(readonly missing: string[]) {
    super(
      `missing prompt variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")} (pass ${missing.length > 1 ? "them" : "it"} in prompt.variables)`,
    );
  }
}

const fill = (text: string, variables: Record<string, string>) =>
  text.replace(PLACEHOLDER, (_, name: string) => variables[name]!);

/**
 * The template with every placeholder replaced by its variable's value (values are inserted as they are: a value
 * containing `{{x}}` is not expanded again). Every variable the template uses must be given; extra ones are
 * ignored. Throws MissingVariablesError naming what is missing.
 */
export function compile(template: Template, variables: Record<string, string>): Template {
  const missing = variablesOf(template).filter((v) => !Object.hasOwn(variables, v));
  if (missing.length) throw new MissingVariablesError(missing);
  return template.type === "chat"
    ? {
        type: "chat",
        messages: template.messages.map((m) => ({ role: m.role, content: fill(m.content, variables) })),
      }
    : { type: "text", text: fill(template.text, variables) };
}

/** A prompt name: path segments of letters, digits, `.`, `_`, `-`, joined by `/` ("support/triage"). */
export const PROMPT_NAME = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)*$/;
/** A label: lower-case letters, digits, `-`, `_` ("production", "staging", "canary-2"). */
export const LABEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** Kept by the store on the newest version; never moved by hand. */
export const LATEST = "latest";
/** Moved only by tenant admins. */
export const PROTECTED_LABEL = "production";

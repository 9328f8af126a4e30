import { AsyncLocalStorage } from "node:async_hooks";
import type {
  ChatMessage,
  FinishReason,
  ProviderType,
  ToolCall,
  ToolChoice,
  ToolSchema,
  Usage,
} from "../types";
import { nodeFetch } from "./node-fetch";

/** One call to one provider deployment, after routing chose it. */
export type AdapterRequest = {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
};

export type AdapterResult = {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  /** The model named in the response body: who really answered. */
  servedModel: string;
  /** What the provider's content filter filtered (Azure OpenAI's verdicts), as `filteredBy` names it. */
  contentFilter?: string[];
};

export type AdapterEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; call: ToolCall }
  /** Usage the provider reported before the end (so a stream cut mid-answer still counts what it used). */
  | { type: "usage"; usage: Usage }
  | {
      type: "end";
      finishReason: FinishReason;
      usage: Usage;
      servedModel: string;
      contentFilter?: string[];
    };

/** One provider type. Adapters throw on failure; the router classifies, retries and falls back. */
export interface ModelAdapter {
  readonly type: ProviderType;
  chat(req: AdapterRequest, signal: AbortSignal): Promise<AdapterResult>;
  stream(req: AdapterRequest, signal: AbortSignal): AsyncIterable<AdapterEvent>;
}

/**
 * The router's per-attempt hooks, carried through the SDKs' internals to our fetch wrapper, so the connect
 * timer can stop when the provider starts answering.
 */
export const attemptHooks = new AsyncLocalStorage<{ onResponse(): void }>();

/** The SDKs' fetch: our node:http transport, telling the current attempt when response headers arrived. */
export const observedFetch = ((input: string | URL | Request, init?: RequestInit) => {
  const hooks = attemptHooks.getStore();
  return nodeFetch(input, init, hooks && (() => hooks.onResponse()));
}) as typeof fetch;

export function parseToolArgs(raw: string | undefined | null): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    // A model that produced broken JSON still gets its call through; the tool's validation will say what is wrong.
    return { _raw: raw };
  }
}

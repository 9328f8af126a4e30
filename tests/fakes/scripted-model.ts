// A scripted model for agent-loop tests: each call takes the next step of the script (or a function of the
// request), and every request it saw is kept for assertions. It plugs into the real Gateway as an adapter.
import type {
  AdapterEvent,
  AdapterRequest,
  AdapterResult,
  ModelAdapter,
} from "@/lib/gateway/adapters/adapter";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { ToolCall } from "@/lib/gateway/types";

export type ScriptStep = {
  text?: string;
  toolCalls?: ToolCall[];
  fail?: number;
  usage?: { input: number; output: number };
};
export type Step = ScriptStep | ((req: AdapterRequest, callNo: number) => ScriptStep);

export class ScriptedModel implements ModelAdapter {
  readonly type = "openai-compatible" as const;
  readonly requests: AdapterRequest[] = [];
  constructor(
    private readonly steps: Step[],
    private readonly fallback: Step = { text: "done" },
  ) {}

  private next(req: AdapterRequest): ScriptStep {
    this.requests.push(structuredClone(req));
    const step = this.steps.shift() ?? this.fallback;
    return typeof step === "function" ? step(req, this.requests.length) : step;
  }

  async chat(req: AdapterRequest): Promise<AdapterResult> {
    const s = this.next(req);
    if (s.fail) throw Object.assign(new Error(`scripted failure ${s.fail}`), { status: s.fail });
    return {
      content: s.text ?? "",
      toolCalls: s.toolCalls ?? [],
      finishReason: s.toolCalls?.length ? "tool_calls" : "stop",
      usage: usage(s),
      servedModel: req.model,
    };
  }

  async *stream(req: AdapterRequest, signal: AbortSignal): AsyncIterable<AdapterEvent> {
    const s = this.next(req);
    if (s.fail) throw Object.assign(new Error(`scripted failure ${s.fail}`), { status: s.fail });
    for (const word of s.text?.match(/\S+\s*/g) ?? []) {
      signal.throwIfAborted();
      yield { type: "text", delta: word };
    }
    for (const call of s.toolCalls ?? []) yield { type: "tool_call", call };
    yield {
      type: "end",
      finishReason: s.toolCalls?.length ? "tool_calls" : "stop",
      usage: usage(s),
      servedModel: req.model,
    };
  }
}

const usage = (s: ScriptStep) => ({
  inputTokens: s.usage?.input ?? 10,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: s.usage?.output ?? 5,
  reasoningTokens: 0,
});

/** A gateway whose one model ("scripted") is the given script; "plain" is the same script without tools. */
export function scriptedGateway(model: ScriptedModel): Gateway {
  const config = parseGatewayConfig(
    {
      providers: {
        scripted: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/unused" },
        plain: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/unused", supportsTools: false },
      },
      models: {
        scripted: { label: "Scripted", candidates: [{ provider: "scripted", model: "scripted-1" }] },
        plain: { label: "Plain", candidates: [{ provider: "plain", model: "plain-1" }] },
      },
      prices: { "scripted-1": { input: "1", output: "2" }, "plain-1": { input: "1", output: "2" } },
      retry: { maxRetries: 0 },
    },
    "scripted",
    {},
  );
  return new Gateway(config, { adapters: { scripted: model, plain: model } });
}

export const call = (
  name: string,
  args: Record<string, unknown> = {},
  id = `call_${name}_${Math.random().toString(36).slice(2, 8)}`,
): ToolCall => ({
  id,
  name,
  args,
});

import { v7 as uuidv7 } from "uuid";
import type { MembershipRole } from "@/db/schema";
import { countFailure } from "@/lib/core/failures";
import { log } from "@/lib/core/log";
import type { Gateway } from "@/lib/gateway/gateway";
import { addCost } from "@/lib/gateway/pricing";
import {
  addUsage,
  type ChatMessage,
  type Stamp,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "@/lib/gateway/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { PipelineEvent } from "@/lib/pipeline/types";
import {
  type ConversationStore,
  cancelledResult,
  modelHistory,
  type StoredMessage,
  storedToolCalls,
} from "@/lib/turns/conversation";
import type { AgentEvent, ToolTraceEntry, TurnStatus, TurnSummary } from "@/lib/turns/events";
import type { ChatTurnSource, TurnObserver } from "@/lib/turns/observer";
import type { ToolRegistry } from "./registry";
import { runToolCall, type ToolOutcome } from "./run-tools";
import type { Tool, ToolContext } from "./tool";

export type AgentConfig = {
  systemPrompt: string;
  maxToolLoops: number;
  maxConcurrentTools: number;
  toolTimeoutMs: number;
  /** The same tool with the same arguments this many times in a row gets an error instead of running. */
  maxRepeatedCalls: number;
};

export const DEFAULT_AGENT_CONFIG: AgentConfig = {
  systemPrompt:
    "You are Tollgate's assistant for this organisation. Answer clearly and briefly. Use the tools when they help; never invent tool results.",
  maxToolLoops: 5,
  maxConcurrentTools: 4,
  toolTimeoutMs: 30_000,
  maxRepeatedCalls: 3,
};

export type AgentContext = {
  tenantId: string;
  userId: string;
  role: MembershipRole;
  conversationId: string;
};

export type SendRequest = { message: string; model?: string; enableTools?: boolean; source?: ChatTurnSource };

export const LIMIT_INSTRUCTION =
  "You have used every tool round available for this request. Do not call tools. Answer the user now in text, with what you have.";
const limitFallbackText = (rounds: number) =>
  `I reached the limit of ${rounds} tool rounds before I could finish, and could not summarise the results. Please ask again with a narrower request.`;

/**
 * Runs one turn of the tool loop: ask the model, run the tools it calls (at most a few at once, results in
 * call order), ask again, up to `maxToolLoops` rounds, then one last call without tools. Whatever happens
 * (answer, error, Stop, limit) the turn's messages are stored with no dangling tool call, and `done` closes it.
 */
export class AgentService {
  readonly config: AgentConfig;
  constructor(
    private readonly deps: {
      gateway: Gateway;
      registry: ToolRegistry;
      store: ConversationStore;
      observer?: TurnObserver;
      /** The request pipeline (cache, rate limits, budgets); without it calls go straight to the gateway. */
      pipeline?: Pipeline;
    },
    config: Partial<AgentConfig> = {},
  ) {
    this.config = { ...DEFAULT_AGENT_CONFIG, ...config };
  }

  /**
   * One turn, streamed. The observer (ledger and audit) sees it start, every event, and its summary before
   * `done` is yielded; an observer failure is logged and never reaches the caller.
   */
  async *send(ctx: AgentContext, request: SendRequest, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const observer = this.deps.observer;
    let turnId = "";
    let started = false;
    const start = async (info: {
      turnId: string;
      startedAt: Date;
      requestedModel: string;
      toolsOffered: string[];
    }) => {
      if (started || !observer) return;
      started = true;
      await observer
        .start({
          ...info,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          conversationId: ctx.conversationId,
          source: request.source ?? "drawer",
          message: request.message,
        })
        .catch((error: unknown) => log.error({ err: error }, "turn observer failed at start"));
    };
    for await (const event of this.run(ctx, request, signal, start)) {
      if (event.type === "turn") turnId = event.turnId;
      if (observer && event.type === "done") {
        await observer
          .end(event.summary)
          .catch((error: unknown) => log.error({ err: error }, "turn observer failed at end"));
      } else if (observer) {
        try {
          observer.event(turnId, event);
        } catch (error) {
          log.error({ err: error }, "turn observer failed on an event");
        }
      }
      yield event;
    }
  }

  private async *run(
    ctx: AgentContext,
    request: SendRequest,
    signal: AbortSignal,
    onStart: (info: {
      turnId: string;
      startedAt: Date;
      requestedModel: string;
      toolsOffered: string[];
    }) => Promise<void>,
  ): AsyncGenerator<AgentEvent> {
    const { gateway, registry, store } = this.deps;
    const turnId = uuidv7();
    const startedAt = new Date();
    const started = performance.now();
    const model = request.model ?? gateway.defaultModel;
    yield { type: "turn", turnId, conversationId: ctx.conversationId };

    const turn: StoredMessage[] = [];
    const trace: ToolTraceEntry[] = [];
    let usage: Usage = ZERO_USAGE;
    let cost: string | null = "0";
    let lastStamp: Stamp | undefined;
    let firstTokenMs: number | null = null;
    let status: TurnStatus = "failed";
    let error: TurnSummary["error"];
    let rounds = 0;
    let cacheHits = 0;
    // How many of the turn's first messages are stored already (the user's message, written before any model call).
    let storedCount = 0;
    try {
      const stored = await store.history(ctx.tenantId, ctx.conversationId);
      const toolSets = registry.forConversation(ctx.conversationId, () => storedToolCalls(stored));
      for (const n of await store.takeNotifications(ctx.tenantId, ctx.conversationId)) {
        turn.push({ role: "user", content: n.body, kind: "notification" });
      }
      turn.push({ role: "user", content: request.message });
      const userIndex = turn.length - 1;
      // Stored now, so a crash mid-turn loses neither the user's message nor the notifications just taken.
      storedCount = await this.storeEarly(ctx, turnId, turn);

      const allTools = new Map<string, Tool>(toolSets.flatMap((s) => s.tools()).map((t) => [t.name, t]));
      const mayCall = (t: Tool) => !t.roles || t.roles.includes(ctx.role);
      const modelInfo = gateway.models().find((m) => m.alias === model);
      let offered =
        request.enableTools === false ? [] : [...allTools.values()].filter((t) => !t.hidden && mayCall(t));
      if (offered.length && modelInfo && !modelInfo.supportsTools) {
        offered = [];
        yield {
          type: "notice",
          code: "tools_unavailable",
          message: `${modelInfo.label} cannot call tools; answering without them.`,
        };
      }
      await onStart({ turnId, startedAt, requestedModel: model, toolsOffered: offered.map((t) => t.name) });
      const system = [this.config.systemPrompt, ...toolSets.map((s) => s.prompt())]
        .filter(Boolean)
        .join("\n\n");
      const repeats = { key: "", count: 0 };

      for (let round = 1; ; round++) {
        rounds = round;
        const lastCall = round > this.config.maxToolLoops;
        const injection = toolSets
          .map((s) => s.iterationInjection())
          .filter(Boolean)
          .join("\n\n");
        // The injection is placed before the user's message for this round only; it is never stored.
        const thisTurn = injection
          ? turn.map((m, i) => (i === userIndex ? { ...m, content: `${injection}\n\n${m.content}` } : m))
          : turn;
        const messages: ChatMessage[] = [
          { role: "system", content: system },
          ...modelHistory(stored),
          ...modelHistory(thisTurn),
        ];
        if (lastCall) messages.push({ role: "user", content: LIMIT_INSTRUCTION });

        let text = "";
        const calls: ToolCall[] = [];
        let failure: { class: string; message: string } | undefined;
        const call = {
          model,
          messages,
          tools: lastCall || !offered.length ? undefined : offered.map((t) => t.schema),
          signal,
        };
        const events: AsyncIterable<PipelineEvent> = this.deps.pipeline
          ? this.deps.pipeline.run(
              {
                tenantId: ctx.tenantId,
                userId: ctx.userId,
                apiKeyId: null,
                source: request.source ?? "drawer",
              },
              call,
              { stream: true },
            )
          : gateway.stream(call);
        for await (const event of events) {
          if (event.type === "text") {
            firstTokenMs ??= Math.round(performance.now() - started);
            text += event.delta;
            yield event;
          } else if (event.type === "tool_call") {
            firstTokenMs ??= Math.round(performance.now() - started);
            calls.push(event.call);
            if (!lastCall) yield { type: "tool_call", call: event.call, round };
          } else if (event.type === "fallback") {
            yield {
              type: "notice",
              code: "fallback",
              message: `${event.from.provider}/${event.from.model} failed (${event.errorClass}); trying the next model.`,
            };
          } else if (event.type === "guardrail") {
            yield { type: "guardrail", code: event.code, message: event.message };
          } else if (event.type === "done") {
            lastStamp = event.response.stamp;
            usage = addUsage(usage, lastStamp.usage);
            cost = addCost(cost, lastStamp.cost);
            if (lastStamp.cacheHit) cacheHits++;
          } else {
            lastStamp = event.stamp;
            failure = { class: event.error.class, message: event.error.message };
          }
        }

        if (failure || signal.aborted) {
          // Partial text is kept; a tool call that never ran gets a cancelled result below.
          if (text || calls.length)
            turn.push({
              role: "assistant",
              content: text,
              toolCalls: calls.length && !lastCall ? calls : undefined,
            });
          if (signal.aborted || failure?.class === "aborted") status = "stopped";
          else if (lastCall) {
            status = "limit";
            if (!text) yield* this.say(turn, limitFallbackText(this.config.maxToolLoops));
          } else {
            status = "failed";
            error = failure;
            yield { type: "error", class: failure!.class, message: failure!.message };
          }
          break;
        }
        if (lastCall) {
          // Tool calls in the last, tool-less round are ignored: the answer is the text.
          turn.push({ role: "assistant", content: text });
          if (!text.trim()) yield* this.say(turn, limitFallbackText(this.config.maxToolLoops));
          yield {
            type: "notice",
            code: "loop_limit",
            message: `Stopped after ${this.config.maxToolLoops} tool rounds.`,
          };
          status = "limit";
          break;
        }
        turn.push({ role: "assistant", content: text, toolCalls: calls.length ? calls : undefined });
        if (!calls.length) {
          status = "success";
          break;
        }

        const outcomes = yield* this.runTools(
          calls,
          { ctx, turnId, allTools, mayCall, repeats, signal, turn },
          (u, c) => {
            usage = addUsage(usage, u);
            cost = addCost(cost, c);
          },
        );
        for (const [i, call] of calls.entries()) {
          const outcome = outcomes[i];
          turn.push(outcome ? toolMessage(call, outcome.content) : cancelledResult(call.id, call.name));
          if (outcome) trace.push(outcome.trace);
        }
        if (signal.aborted) {
          status = "stopped";
          break;
        }
      }
    } catch (thrown) {
      status = signal.aborted ? "stopped" : "failed";
      error = { class: "internal", message: thrown instanceof Error ? thrown.message : String(thrown) };
      if (status === "failed")
        yield { type: "error", class: "internal", message: "the agent failed; the error is logged" };
    } finally {
      // Stored even after Stop: the store call does not use the aborted signal.
      await store
        .append(ctx.tenantId, ctx.conversationId, turnId, closeDanglingCalls(turn).slice(storedCount))
        .catch((storeError: unknown) => {
          countFailure("conversation");
          log.error(
            { err: storeError, turnId },
            "could not store the turn's messages; the reply was not affected",
          );
        });
      // A turn that failed before it got going still gets its ledger row.
      await onStart({ turnId, startedAt, requestedModel: model, toolsOffered: [] });
    }
    yield {
      type: "done",
      summary: {
        turnId,
        conversationId: ctx.conversationId,
        status,
        requestedModel: model,
        servedProvider: lastStamp?.servedProvider ?? null,
        servedAdapter: lastStamp?.servedAdapter ?? null,
        servedModel: lastStamp?.servedModel ?? null,
        fallbackIndex: lastStamp?.fallbackIndex ?? null,
        attempts: lastStamp?.attempts ?? [],
        usage,
        cost,
        rounds,
        toolTrace: trace,
        timeToFirstTokenMs: firstTokenMs,
        latencyMs: Math.round(performance.now() - started),
        cacheHits,
        error,
      },
    };
  }

  /** Appends the turn's opening messages; returns how many were stored (0 when the write failed: the end retries). */
  private async storeEarly(ctx: AgentContext, turnId: string, opening: StoredMessage[]): Promise<number> {
    try {
      await this.deps.store.append(ctx.tenantId, ctx.conversationId, turnId, [...opening]);
      return opening.length;
    } catch (error) {
      log.error(
        { err: error, turnId },
        "could not store the user's message before the model call; retrying at the end",
      );
      return 0;
    }
  }

  /** Adds a sentence of ours as the answer, so the user never sees an empty bubble. */
  private async *say(turn: StoredMessage[], text: string): AsyncGenerator<AgentEvent> {
    const last = turn[turn.length - 1];
    if (last?.role === "assistant" && !last.toolCalls?.length) last.content = text;
    else turn.push({ role: "assistant", content: text });
    yield { type: "text", delta: text };
  }

  /**
   * Runs a round's calls, at most `maxConcurrentTools` at once; events as each finishes, outcomes in call
   * order. On Stop it returns at once: calls still running get their abort and, later, `cancelled` results.
   */
  private async *runTools(
    calls: ToolCall[],
    run: {
      ctx: AgentContext;
      turnId: string;
      allTools: Map<string, Tool>;
      mayCall: (t: Tool) => boolean;
      repeats: { key: string; count: number };
      signal: AbortSignal;
      turn: StoredMessage[];
    },
    addSpend: (usage: Usage, cost: string | null) => void,
  ): AsyncGenerator<AgentEvent, (ToolOutcome | undefined)[]> {
    const outcomes: (ToolOutcome | undefined)[] = new Array(calls.length);
    const emitted: AgentEvent[] = [];
    const repeated = calls.map((call) => {
      const key = `${call.name}\n${JSON.stringify(call.args)}`;
      run.repeats.count = key === run.repeats.key ? run.repeats.count + 1 : 1;
      run.repeats.key = key;
      return run.repeats.count >= this.config.maxRepeatedCalls;
    });
    const context = (call: ToolCall, signal: AbortSignal): ToolContext => ({
      tenantId: run.ctx.tenantId,
      userId: run.ctx.userId,
      role: run.ctx.role,
      conversationId: run.ctx.conversationId,
      turnId: run.turnId,
      signal,
      emit: async (message) => {
        run.turn.push({
          role: "assistant",
          content: message.content,
          data: { ...message.data, toolCallId: call.id },
          kind: "display",
        });
        emitted.push({ type: "message", content: message.content, data: message.data });
      },
      addUsage: addSpend,
    });
    const options = {
      tools: run.allTools,
      mayCall: run.mayCall,
      maxConcurrent: this.config.maxConcurrentTools,
      defaultTimeoutMs: this.config.toolTimeoutMs,
      context,
      signal: run.signal,
    };
    const stopped = new Promise<"stopped">((resolve) => {
      if (run.signal.aborted) resolve("stopped");
      run.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
    const running = new Map<number, Promise<{ index: number; outcome: ToolOutcome }>>();
    let next = 0;
    while (next < calls.length || running.size) {
      while (running.size < this.config.maxConcurrentTools && next < calls.length && !run.signal.aborted) {
        const index = next++;
        const call = calls[index]!;
        const pending = repeated[index]
          ? Promise.resolve(repeatedOutcome(call, this.config.maxRepeatedCalls))
          : runToolCall(call, options);
        running.set(
          index,
          pending.then((outcome) => ({ index, outcome })),
        );
      }
      if (!running.size) break;
      const first = await Promise.race([...running.values(), stopped]);
      if (first === "stopped") break;
      running.delete(first.index);
      outcomes[first.index] = first.outcome;
      if (repeated[first.index]) {
        yield {
          type: "notice",
          code: "repeated_call",
          message: `${calls[first.index]!.name} was called with the same arguments ${this.config.maxRepeatedCalls} times in a row.`,
        };
      }
      yield* emitted.splice(0);
      yield* first.outcome.events;
    }
    return outcomes;
  }
}

function toolMessage(call: ToolCall, content: string): ChatMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content };
}

function repeatedOutcome(call: ToolCall, times: number): ToolOutcome {
  const content = JSON.stringify({
    error: `you called ${call.name} with the same arguments ${times} times in a row; do not repeat it, use the results you already have`,
  });
  return {
    content,
    ok: false,
    trace: { callId: call.id, name: call.name, durationMs: 0, ok: false, error: "repeated call" },
    events: [
      { type: "tool_result", callId: call.id, name: call.name, ok: false, result: content, durationMs: 0 },
    ],
  };
}

/** Every assistant tool call gets a result before the turn is stored (providers reject dangling calls). */
function closeDanglingCalls(turn: StoredMessage[]): StoredMessage[] {
  const answered = new Set(turn.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  const out: StoredMessage[] = [];
  for (const m of turn) {
    out.push(m);
    if (m.role === "assistant" && m.toolCalls?.length) {
      for (const c of m.toolCalls) if (!answered.has(c.id)) out.push(cancelledResult(c.id, c.name));
    }
  }
  return out;
}

import "server-only";
import { v7 as uuidv7 } from "uuid";
import type { MembershipRole } from "@/db/schema";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ChatMessage, ChatRequest, ImagePart, Stamp, ToolCall } from "@/lib/gateway/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { PipelineEvent } from "@/lib/pipeline/types";
import {
  type ConversationStore,
  modelHistory,
  type StoredMessage,
  storedToolCalls,
} from "@/lib/turns/conversation";
import { type AgentEvent, contentFilterEvent, isRecordOnly, type TurnEvent } from "@/lib/turns/events";
import type { ChatTurnSource, TurnObserver, TurnPrompt, TurnReplacement } from "@/lib/turns/observer";
import type { Confirmations } from "./confirmations";
import type { ConversationFiles } from "./conversation-files";
import { outsideTextSource } from "./outside-text";
import type { ToolRegistry } from "./registry";
import { type RepeatCounter, runRoundTools } from "./round-tools";
import type { Tool, ToolSet } from "./tool";
import {
  DescriptionScreen,
  type ToolCallScope,
  type ToolGuardrails,
  type ToolInputGuard,
  toolInputGuard,
} from "./tool-guardrails";
import { AddedAllowance, type TurnModel } from "./tool-messages";
import { TurnProgress } from "./turn-progress";

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

export type SendRequest = {
  message: string;
  model?: string;
  enableTools?: boolean;
  source?: ChatTurnSource;
  /** The tenant's own system prompt (its `assistant` prompt), instead of the built-in one, and which version it is. */
  system?: { text: string; prompt: TurnPrompt; toolSets?: string[] };
  /** This turn edits or regenerates an earlier one (the caller marks that one's messages superseded). */
  replaces?: TurnReplacement;
  /** What the route resolved beside the text: context items, attachments, the schema context (admins). */
  extras?: TurnExtras;
  /**
   * The run this turn's calls belong to: a sub-agent's turn is part of the run of the turn that delegated to it
   * (the same run ceilings hold both). Absent: the turn is a run of its own (its id).
   */
  runId?: string;
};

/**
 * What comes with a user's message, resolved by the route before the turn starts (so a refusal sends nothing):
 * `contextBlocks` are delimited, escaped blocks the model reads before the user's words (context items, files'
 * text), stored with the message so later turns still see them; `images` go with this turn's message only;
 * `data` is what the drawer shows on the message (chips, attachments); `notices` are streamed at the start;
 * `system` is added to the system prompt (the schema context for admins). `audit` is recorded (masked) on the
 * turn's `request` event.
 */
export type TurnExtras = {
  contextBlocks?: string[];
  images?: ImagePart[];
  data?: Record<string, unknown>;
  notices?: { code: "context" | "attachment_cut"; message: string }[];
  system?: string;
  audit?: Record<string, unknown>;
};

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
      /**
       * Where drawer turns' calls wait for the user's Approve / Deny; without it (or in a scheduled turn, where no
       * one watches) a tool that requires confirmation is not run.
       */
      confirmations?: Confirmations;
      /**
       * The tenant's guardrails over tools: `tool_input` rules on every call's arguments, `input` injection rules on
       * the MCP tools' descriptions before they are offered. Without it neither runs.
       */
      guardrails?: ToolGuardrails;
      /** Where the images a tool names by file id are read (the conversation's attachments); without it, refused. */
      files?: ConversationFiles;
    },
    config: Partial<AgentConfig> = {},
  ) {
    this.config = { ...DEFAULT_AGENT_CONFIG, ...config };
    this.descriptions = deps.guardrails ? new DescriptionScreen(deps.guardrails) : undefined;
  }

  private readonly descriptions: DescriptionScreen | undefined;

  /**
   * One turn, streamed. The observer (ledger and audit) sees it start, every event, and its summary before
   * `done` is yielded; an observer failure is logged and never reaches the caller.
   */
  async *send(ctx: AgentContext, request: SendRequest, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const observer = this.deps.observer;
    let turnId = "";
    let started = false;
    const start: TurnStarted = async (info) => {
      if (started || !observer) return;
      started = true;
      await observer
        .start({
          ...info,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          conversationId: ctx.conversationId,
          source: request.source ?? "drawer",
          // A turn of the loop is one run of its own (its calls, model rounds and tools, are one piece of work),
          // or part of the run that delegated to it.
          runId: request.runId ?? info.turnId,
          message: request.message,
          ...(request.replaces ? { replaces: request.replaces } : {}),
          ...(request.extras?.audit ? { inputs: request.extras.audit } : {}),
        })
        .catch((error: unknown) => log.error({ err: error }, "turn observer failed at start"));
    };
    for await (const event of this.run({ ctx, request, signal }, start)) {
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
      // Model calls and the answer are for the record: the caller already saw them as text and tool calls.
      if (!isRecordOnly(event)) yield event;
    }
  }

  /** The turn as a story: prepare it, tool rounds until the model answers, the limit round, close it. */
  private async *run(input: TurnInput, onStart: TurnStarted): AsyncGenerator<TurnEvent> {
    const { ctx, request, signal } = input;
    const progress = new TurnProgress(
      uuidv7(),
      ctx.conversationId,
      request.model ?? this.deps.gateway.defaultModel,
    );
    yield { type: "turn", turnId: progress.turnId, conversationId: ctx.conversationId };
    try {
      const turn = yield* this.prepareTurn(input, progress, onStart);
      let ended = false;
      for (let round = 1; round <= this.config.maxToolLoops && !ended; round++) {
        ended = yield* this.toolRound(turn, progress, round);
      }
      if (!ended) yield* this.limitRound(turn, progress);
    } catch (thrown) {
      progress.status = signal.aborted ? "stopped" : "failed";
      progress.error = {
        class: "internal",
        message: thrown instanceof Error ? thrown.message : String(thrown),
      };
      if (progress.status === "failed")
        yield { type: "error", class: "internal", message: "the agent failed; the error is logged" };
    } finally {
      await this.closeTurn(ctx, progress, onStart);
    }
    const answer = progress.answerText();
    if (answer) yield { type: "answer", text: answer, status: progress.status };
    yield { type: "done", summary: progress.summary() };
  }

  /**
   * Loads the history, takes queued notifications, stores the user's message before any model call, decides
   * which tools are offered, tells the observer the turn started, and fixes the system prompt.
   */
  private async *prepareTurn(
    input: TurnInput,
    progress: TurnProgress,
    onStart: TurnStarted,
  ): AsyncGenerator<AgentEvent, PreparedTurn> {
    const { ctx, request } = input;
    const { gateway, registry, store } = this.deps;
    const model = progress.requestedModel;
    const history = await store.history(ctx.tenantId, ctx.conversationId);
    const tenantToolSets = await registry.tenantToolSets(ctx.tenantId);
    const allToolSets = [
      ...registry.forConversation(ctx.conversationId, () => storedToolCalls(history)),
      ...tenantToolSets,
    ];
    // A stored assistant prompt may name the tool sets to offer; without that list every set is offered.
    const only = request.system?.toolSets;
    const toolSets = only ? allToolSets.filter((s) => only.includes(s.name)) : allToolSets;
    const notes = await store.takeNotifications(ctx.tenantId, ctx.conversationId);
    for (const n of notes) progress.messages.push({ role: "user", content: n.body, kind: "notification" });
    const extras = request.extras;
    const blocks = extras?.contextBlocks?.length ? { contextBlocks: extras.contextBlocks } : {};
    const data = extras?.data || extras?.contextBlocks?.length ? { ...extras?.data, ...blocks } : undefined;
    progress.messages.push({ role: "user", content: request.message, ...(data ? { data } : {}) });
    for (const notice of extras?.notices ?? []) yield { type: "notice", ...notice };
    const userIndex = progress.messages.length - 1;
    // Stored now, so a crash mid-turn loses neither the user's message nor the notifications just taken.
    progress.storedCount = await this.storeEarly(ctx, progress.turnId, progress.messages);
    // The drawer shows what this turn took, so a notice that arrived after its last look is not missed.
    for (const n of notes) yield { type: "note", noteType: n.type, text: n.body };

    const tools = new Map<string, Tool>(toolSets.flatMap((s) => s.tools()).map((t) => [t.name, t]));
    // A tool the tenant switched off (web_fetch's setting) is neither offered nor run.
    const switchedOff = await unavailableTools(tools.values(), ctx.tenantId);
    // An MCP tool whose description a guardrail blocks is neither offered nor run.
    const scope = guardrailScope(ctx, request, model);
    const screened = this.descriptions
      ? await this.descriptions.screen(
          tenantToolSets.flatMap((s) => s.tools()).filter((t) => !t.hidden),
          scope,
        )
      : undefined;
    for (const name of screened?.withheld ?? []) {
      switchedOff.add(name);
      log.warn(
        { tenantId: ctx.tenantId, tool: name },
        "an MCP tool was withheld by a guardrail on its description",
      );
    }
    for (const event of screened?.events ?? []) yield event;
    const mayCall = (t: Tool) => (!t.roles || t.roles.includes(ctx.role)) && !switchedOff.has(t.name);
    const modelInfo = gateway.models().find((m) => m.alias === model);
    const turnModel: TurnModel = {
      alias: model,
      label: modelInfo?.label ?? model,
      // The offline demo model takes attached images but cannot see them: nothing is shown to it.
      supportsVision: (modelInfo?.supportsVision ?? false) && !modelInfo?.offline,
    };
    // A tool that shows the model images (load_image) is offered only to an alias that reads them.
    let offered =
      request.enableTools === false
        ? []
        : [...tools.values()].filter(
            (t) => !t.hidden && mayCall(t) && (!t.needsVision || turnModel.supportsVision),
          );
    if (offered.length && modelInfo && !modelInfo.supportsTools) {
      offered = [];
      yield {
        type: "notice",
        code: "tools_unavailable",
        message: `${modelInfo.label} cannot call tools; answering without them.`,
      };
    }
    await onStart({
      turnId: progress.turnId,
      startedAt: progress.startedAt,
      requestedModel: model,
      toolsOffered: offered.map((t) => t.name),
      prompt: request.system?.prompt,
    });
    const system = [
      request.system?.text ?? this.config.systemPrompt,
      ...toolSets.map((s) => s.prompt()),
      extras?.system,
    ]
      .filter(Boolean)
      .join("\n\n");
    return {
      ...input,
      history,
      toolSets,
      userIndex,
      tools,
      mayCall,
      offered,
      system,
      repeats: { key: "", count: 0 },
      guardInput: this.deps.guardrails ? toolInputGuard(this.deps.guardrails, scope) : undefined,
      model: turnModel,
      allowance: new AddedAllowance(),
    };
  }

  /** One round with tools on offer: ask the model, run the tools it calls. True when the turn has ended. */
  private async *toolRound(
    turn: PreparedTurn,
    progress: TurnProgress,
    round: number,
  ): AsyncGenerator<TurnEvent, boolean> {
    progress.rounds = round;
    const answer = yield* this.askModel(turn, progress, { round, lastCall: false });
    if (answer.failure || turn.signal.aborted) {
      yield* this.endCutRound(turn, progress, answer, false);
      return true;
    }
    const { text, calls } = answer;
    progress.messages.push({ role: "assistant", content: text, toolCalls: calls.length ? calls : undefined });
    if (!calls.length) {
      progress.status = "success";
      return true;
    }
    yield* runRoundTools(
      calls,
      {
        tools: turn.tools,
        mayCall: turn.mayCall,
        caller: {
          tenantId: turn.ctx.tenantId,
          userId: turn.ctx.userId,
          role: turn.ctx.role,
          conversationId: turn.ctx.conversationId,
          turnId: progress.turnId,
        },
        addUsage: (usage, cost, costStatus) => progress.addSpend(usage, cost, costStatus),
        noteUse: progress.uses.note,
        repeats: turn.repeats,
        signal: turn.signal,
        limits: this.config,
        // Only a drawer turn has its user watching the stream, able to answer.
        confirmations: (turn.request.source ?? "drawer") === "drawer" ? this.deps.confirmations : undefined,
        outsideText: () => outsideTextSource([...turn.history, ...progress.messages], turn.tools),
        guardInput: turn.guardInput,
        model: turn.model,
        files: this.deps.files,
        allowance: turn.allowance,
      },
      progress.messages,
      progress.trace,
    );
    if (turn.signal.aborted) {
      progress.status = "stopped";
      return true;
    }
    return false;
  }

  /** After `maxToolLoops` rounds, one last call without tools so the model must answer in text. */
  private async *limitRound(turn: PreparedTurn, progress: TurnProgress): AsyncGenerator<TurnEvent> {
    progress.rounds = this.config.maxToolLoops + 1;
    const answer = yield* this.askModel(turn, progress, { round: progress.rounds, lastCall: true });
    if (answer.failure || turn.signal.aborted) {
      yield* this.endCutRound(turn, progress, answer, true);
      return;
    }
    // Tool calls in the last, tool-less round are ignored: the answer is the text.
    progress.messages.push({ role: "assistant", content: answer.text });
    if (!answer.text.trim()) yield* this.say(progress.messages, limitFallbackText(this.config.maxToolLoops));
    yield {
      type: "notice",
      code: "loop_limit",
      message: `Stopped after ${this.config.maxToolLoops} tool rounds.`,
    };
    progress.status = "limit";
  }

  /** One model call (through the pipeline when there is one), its text and tool calls streamed to the client. */
  private async *askModel(
    turn: PreparedTurn,
    progress: TurnProgress,
    { round, lastCall }: { round: number; lastCall: boolean },
  ): AsyncGenerator<TurnEvent, ModelAnswer> {
    let text = "";
    const calls: ToolCall[] = [];
    let failure: ModelAnswer["failure"];
    const startMs = progress.elapsedMs();
    const callStarted = performance.now();
    let firstTokenMs: number | null = null;
    let stamp: Stamp | undefined;
    const firstToken = () => {
      progress.markFirstToken();
      firstTokenMs ??= Math.round(performance.now() - callStarted);
    };
    const call = {
      model: progress.requestedModel,
      messages: this.roundMessages(turn, progress.messages, lastCall),
      tools: lastCall || !turn.offered.length ? undefined : turn.offered.map((t) => t.schema),
      signal: turn.signal,
    };
    for await (const event of this.modelEvents(turn, progress.turnId, call)) {
      if (event.type === "text") {
        firstToken();
        text += event.delta;
        yield event;
      } else if (event.type === "tool_call") {
        firstToken();
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
        stamp = event.response.stamp;
        progress.addAnswer(stamp);
      } else if (event.type === "error") {
        stamp = event.stamp;
        progress.addFailure(stamp);
        failure = { class: event.error.class, message: event.error.message };
      }
    }
    const stopped = turn.signal.aborted || failure?.class === "aborted";
    const filtered = contentFilterEvent(stamp);
    if (filtered) yield filtered;
    yield {
      type: "model_call",
      call: {
        round,
        lastCall,
        outcome: stopped ? "stopped" : failure ? "error" : "ok",
        servedProvider: stamp?.servedProvider ?? null,
        servedAdapter: stamp?.servedAdapter ?? null,
        servedModel: stamp?.servedModel ?? null,
        fallbackIndex: stamp?.fallbackIndex ?? null,
        attempts: stamp?.attempts ?? [],
        startMs,
        durationMs: Math.round(performance.now() - callStarted),
        firstTokenMs,
        // As the ledger counts them: a failed or stopped call's usage is not added to the turn.
        usage: stamp && !failure ? stamp.usage : null,
        cost: stamp && !failure ? stamp.cost : null,
        cacheHit: stamp?.cacheHit === true,
        toolCalls: calls.length,
        ...(calls.length && text ? { text } : {}),
        ...(failure && !stopped ? { error: failure } : {}),
      },
    };
    return { text, calls, failure };
  }

  /** Without a pipeline the call goes straight to the gateway. */
  private modelEvents(
    turn: PreparedTurn,
    turnId: string,
    call: ChatRequest & { model: string },
  ): AsyncIterable<PipelineEvent> {
    const { ctx, request } = turn;
    return this.deps.pipeline
      ? this.deps.pipeline.run(
          {
            tenantId: ctx.tenantId,
            userId: ctx.userId,
            apiKeyId: null,
            source: request.source ?? "drawer",
            // A turn is its own run (or its delegator's): the tenant's run ceilings hold its model calls together.
            runId: request.runId ?? turnId,
          },
          call,
          { stream: true },
        )
      : this.deps.gateway.stream(call);
  }

  /** System prompt, stored history, the turn so far; the tool sets' injection goes before the user's message. */
  private roundMessages(turn: PreparedTurn, messages: StoredMessage[], lastCall: boolean): ChatMessage[] {
    const injection = turn.toolSets
      .map((s) => s.iterationInjection())
      .filter(Boolean)
      .join("\n\n");
    // The injection is placed before the user's message for this round only; it is never stored. This turn's
    // images go with the user's message (earlier turns' images are not sent again).
    const images = turn.request.extras?.images;
    const thisTurn =
      injection || images?.length
        ? messages.map((m, i) =>
            i === turn.userIndex
              ? {
                  ...m,
                  content: injection ? `${injection}\n\n${m.content}` : m.content,
                  ...(images?.length ? { images } : {}),
                }
              : m,
          )
        : messages;
    const out: ChatMessage[] = [
      { role: "system", content: turn.system },
      ...modelHistory(turn.history, { earlierTurns: true }),
      ...modelHistory(thisTurn),
    ];
    if (lastCall) out.push({ role: "user", content: LIMIT_INSTRUCTION });
    return out;
  }

  /** A round cut short by a model failure or Stop: keep what was said, and say why the turn ended. */
  private async *endCutRound(
    turn: PreparedTurn,
    progress: TurnProgress,
    { text, calls, failure }: ModelAnswer,
    lastCall: boolean,
  ): AsyncGenerator<AgentEvent> {
    // Partial text is kept; a tool call that never ran gets a cancelled result when the turn is stored.
    if (text || calls.length)
      progress.messages.push({
        role: "assistant",
        content: text,
        toolCalls: calls.length && !lastCall ? calls : undefined,
      });
    if (turn.signal.aborted || failure?.class === "aborted") progress.status = "stopped";
    else if (lastCall) {
      progress.status = "limit";
      if (!text) yield* this.say(progress.messages, limitFallbackText(this.config.maxToolLoops));
    } else {
      progress.status = "failed";
      progress.error = failure;
      yield { type: "error", class: failure!.class, message: failure!.message };
    }
  }

  /** Stores the turn's messages (even after Stop: the store call does not use the aborted signal). */
  private async closeTurn(ctx: AgentContext, progress: TurnProgress, onStart: TurnStarted): Promise<void> {
    const { turnId } = progress;
    await this.deps.store
      .append(ctx.tenantId, ctx.conversationId, turnId, progress.unstoredMessages())
      .catch((storeError: unknown) => {
        countFailure("conversation");
        log.error(
          { err: storeError, turnId },
          "could not store the turn's messages; the reply was not affected",
        );
      });
    // A turn that failed before it got going still gets its ledger row.
    await onStart({
      turnId,
      startedAt: progress.startedAt,
      requestedModel: progress.requestedModel,
      toolsOffered: [],
    });
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
}

/** The names of the tools the tenant has switched off now (their `available` says no). */
async function unavailableTools(tools: Iterable<Tool>, tenantId: string): Promise<Set<string>> {
  const asked = [...tools].filter((t) => t.available);
  const answers = await Promise.all(asked.map((t) => t.available!(tenantId)));
  return new Set(asked.filter((_, i) => !answers[i]).map((t) => t.name));
}

type TurnInput = { ctx: AgentContext; request: SendRequest; signal: AbortSignal };

/** Tells the observer the turn started; only the first call counts. */
type TurnStarted = (info: {
  turnId: string;
  startedAt: Date;
  requestedModel: string;
  toolsOffered: string[];
  prompt?: TurnPrompt;
}) => Promise<void>;

/** What the turn settles before its first model call and keeps for every round. */
type PreparedTurn = TurnInput & {
  history: StoredMessage[];
  toolSets: ToolSet[];
  /** Where the user's message sits in the turn's messages (notifications come before it). */
  userIndex: number;
  tools: Map<string, Tool>;
  mayCall: (tool: Tool) => boolean;
  offered: Tool[];
  system: string;
  repeats: RepeatCounter;
  guardInput?: ToolInputGuard;
  /** The alias asked for, and whether it reads images (messages tools add, tools that need vision). */
  model: TurnModel;
  /** What the messages tools add may still carry in this turn. */
  allowance: AddedAllowance;
};

/** Whose turn it is, as a guardrail rule's scope names it: the alias asked for, the user, drawer or schedule. */
function guardrailScope(ctx: AgentContext, request: SendRequest, alias: string): ToolCallScope {
  return { tenantId: ctx.tenantId, userId: ctx.userId, alias, source: request.source ?? "drawer" };
}

type ModelAnswer = { text: string; calls: ToolCall[]; failure?: { class: string; message: string } };

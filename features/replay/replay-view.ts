// The replay's "prepare" step: a turn's ledger row and audit events become the steps it is shown as, in the order
// the user lived them, and the rows of its waterfall. Pure and browser-safe (the page renders what this decides).
import { type DecodedText, decodeJsonText, decodeNested } from "@/lib/core/text/json-text";
import type { ReplayEvent, ReplayTurn } from "./contracts";

type Attempt = { provider: string; model: string; outcome: string; errorClass?: string; durationMs?: number };
type Usage = {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
};

/** Where a model step's figures come from: its own event, the ledger row (one call), or only its round's events. */
export type StepSource = "recorded" | "ledger" | "inferred";

export type RequestStep = {
  kind: "request";
  seq: number;
  model: string;
  source: string;
  message: string;
  toolsOffered: string[];
};
export type ModelStep = {
  kind: "model";
  seq: number | null;
  round: number;
  lastCall: boolean;
  source: StepSource;
  outcome: "ok" | "error" | "stopped" | null;
  servedProvider: string | null;
  servedModel: string | null;
  fallbackIndex: number | null;
  attempts: Attempt[];
  attemptCount: number | null;
  startMs: number | null;
  durationMs: number | null;
  firstTokenMs: number | null;
  usage: Usage | null;
  cost: string | null;
  cacheHit: boolean;
  /** What the model said in a round that also called tools. */
  text: string | null;
  error: { class: string; message: string } | null;
  /** The seq of each tool call the model made in this round. */
  toolCalls: { seq: number; name: string }[];
};
export type ToolStep = {
  kind: "tool";
  seq: number;
  round: number;
  callId: string;
  name: string;
  args: unknown;
  callSeq: number | null;
  resultSeq: number | null;
  ok: boolean | null;
  startMs: number | null;
  durationMs: number | null;
  result: DecodedText | null;
  /** An API call's tool call: handed back to the calling app, not run here. */
  passthrough: boolean;
  /** Other tools of its round ran at the same time. */
  parallel: boolean;
  /** The message the call added for the model (load_image): its text as audited, its images named. */
  message: AddedMessageView | null;
};
/** A message a tool added, as the audit keeps it: text (masked, clipped), images by type, size and name. */
export type AddedMessageView = {
  text: string;
  images: { type: string; size: number | null; name: string | null }[];
};
export type NoteStep = {
  kind: "guardrail" | "fallback" | "error" | "stop" | "confirmation" | "other";
  seq: number;
  type: string;
  atMs: number | null;
  payload: Record<string, unknown>;
};
export type AnswerStep = { kind: "answer"; seq: number; text: string; status: string };
export type Step = RequestStep | ModelStep | ToolStep | NoteStep | AnswerStep;

export type WaterfallRow = {
  key: string;
  kind: "model" | "tool" | "wait";
  label: string;
  startMs: number;
  durationMs: number;
  /** A model call's first token, from its start. */
  firstTokenMs: number | null;
  /** The step it draws (for its anchor); none for waiting. */
  seq: number | null;
  ok: boolean | null;
};

/** What the trail does not hold (turns recorded before model calls and answers were audited, or API calls). */
export type Missing = "request" | "model_calls" | "answer" | "timings";

export type Replay = {
  steps: Step[];
  waterfall: WaterfallRow[];
  totalMs: number;
  missing: Missing[];
};

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Gaps shorter than this between activities (the loop handing over) are not drawn as waiting. */
const MIN_WAIT_MS = 10;

/**
 * When an event happened, in ms from the turn's start: its own `atMs`, else (a drawer turn written event by event)
 * the time its row was written; an API call's rows are written together at its end, so they tell nothing.
 */
function atOf(event: ReplayEvent, turn: ReplayTurn): number | null {
  const at = num(event.payload.atMs);
  if (at !== null) return at;
  if (turn.source === "api") return null;
  const written = Date.parse(event.createdAt) - Date.parse(turn.startedAt);
  return Number.isFinite(written) && written >= 0 ? written : null;
}

function usageOf(v: unknown): Usage | null {
  if (!v || typeof v !== "object") return null;
  const u = v as Record<string, unknown>;
  return {
    inputTokens: num(u.inputTokens) ?? 0,
    cachedInputTokens: num(u.cachedInputTokens) ?? 0,
    cacheWriteTokens: num(u.cacheWriteTokens) ?? 0,
    outputTokens: num(u.outputTokens) ?? 0,
    reasoningTokens: num(u.reasoningTokens) ?? 0,
  };
}

function modelStepOf(event: ReplayEvent): ModelStep {
  const p = event.payload;
  const error = p.error && typeof p.error === "object" ? (p.error as Record<string, unknown>) : null;
  const outcome = str(p.outcome);
  return {
    kind: "model",
    seq: event.seq,
    round: num(p.round) ?? 1,
    lastCall: p.lastCall === true,
    source: "recorded",
    outcome: outcome === "ok" || outcome === "error" || outcome === "stopped" ? outcome : null,
    servedProvider: str(p.servedProvider),
    servedModel: str(p.servedModel),
    fallbackIndex: num(p.fallbackIndex),
    attempts: Array.isArray(p.attempts) ? (p.attempts as Attempt[]) : [],
    attemptCount: Array.isArray(p.attempts) ? p.attempts.length : null,
    startMs: num(p.startMs),
    durationMs: num(p.durationMs),
    firstTokenMs: num(p.firstTokenMs),
    usage: usageOf(p.usage),
    cost: str(p.cost),
    cacheHit: p.cacheHit === true,
    text: str(p.text),
    error: error ? { class: String(error.class ?? ""), message: String(error.message ?? "") } : null,
    toolCalls: [],
  };
}

/** A model step known only from the ledger: an API call's one call, or an older turn's rounds. */
function inferredModelStep(turn: ReplayTurn, round: number, last: boolean): ModelStep {
  const single = turn.rounds <= 1;
  const api = turn.source === "api";
  const whole = api || single;
  return {
    kind: "model",
    seq: null,
    round,
    lastCall: false,
    source: api ? "ledger" : "inferred",
    outcome: last
      ? turn.status === "success"
        ? "ok"
        : turn.status === "stopped"
          ? "stopped"
          : "error"
      : "ok",
    // The ledger names who served the turn's last call; earlier rounds are not recorded apart.
    servedProvider: last ? turn.servedProvider : null,
    servedModel: last ? turn.servedModel : null,
    fallbackIndex: last ? turn.fallbackIndex : null,
    attempts: [],
    attemptCount: last ? turn.attempts : null,
    startMs: whole ? 0 : null,
    durationMs: whole ? turn.latencyMs : null,
    firstTokenMs: whole ? turn.firstTokenMs : null,
    usage: whole
      ? {
          inputTokens: turn.inputTokens,
          cachedInputTokens: turn.cachedInputTokens,
          cacheWriteTokens: turn.cacheWriteTokens,
          outputTokens: turn.outputTokens,
          reasoningTokens: turn.reasoningTokens,
        }
      : null,
    cost: whole ? turn.cost : null,
    cacheHit: whole && turn.cacheHits > 0,
    text: null,
    error: last && turn.errorClass ? { class: turn.errorClass, message: turn.errorMessage ?? "" } : null,
    toolCalls: [],
  };
}

type Keyed = { key: number; step: Step };

/** A tool_result's `message` as recorded (lib/governance/recorder.ts), or null when there is none or it is not one. */
function addedMessageOf(value: unknown): AddedMessageView | null {
  if (typeof value !== "object" || value === null) return null;
  const m = value as { text?: unknown; images?: unknown };
  const images = Array.isArray(m.images)
    ? m.images.flatMap((i) =>
        typeof i === "object" && i !== null && typeof (i as { type?: unknown }).type === "string"
          ? [
              {
                type: (i as { type: string }).type,
                size: num((i as { size?: unknown }).size),
                name: str((i as { name?: unknown }).name) ?? null,
              },
            ]
          : [],
      )
    : [];
  const text = str(m.text) ?? "";
  return text || images.length ? { text, images } : null;
}

/** The turn's steps in the order they happened, with what the trail lacks. */
export function buildReplay(turn: ReplayTurn, events: ReplayEvent[]): Replay {
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const keyed: Keyed[] = [];
  const models = new Map<number, ModelStep>();
  const tools = new Map<string, ToolStep>();
  const toolsByRound = new Map<number, ToolStep[]>();
  const missing: Missing[] = [];
  let answer = false;
  let lastResultSeq = 0;

  for (const event of ordered) {
    const p = event.payload;
    switch (event.type) {
      case "request":
        keyed.push({
          key: event.seq,
          step: {
            kind: "request",
            seq: event.seq,
            model: str(p.model) ?? turn.requestedModel,
            source: str(p.source) ?? turn.source,
            message: str(p.message) ?? "",
            toolsOffered: Array.isArray(p.toolsOffered) ? p.toolsOffered.map(String) : [],
          },
        });
        break;
      case "model_call": {
        const step = modelStepOf(event);
        models.set(step.round, step);
        break;
      }
      case "tool_call": {
        const callId = str(p.callId) ?? `seq-${event.seq}`;
        const round = num(p.round) ?? 1;
        const step: ToolStep = {
          kind: "tool",
          seq: event.seq,
          round,
          callId,
          name: str(p.name) ?? "?",
          args: decodeNested(p.args ?? null),
          callSeq: event.seq,
          resultSeq: null,
          ok: null,
          startMs: null,
          durationMs: null,
          result: null,
          passthrough: turn.source === "api",
          parallel: false,
          message: null,
        };
        tools.set(callId, step);
        toolsByRound.set(round, [...(toolsByRound.get(round) ?? []), step]);
        keyed.push({ key: event.seq, step });
        break;
      }
      case "tool_result": {
        const callId = str(p.callId) ?? `seq-${event.seq}`;
        lastResultSeq = event.seq;
        let step = tools.get(callId);
        if (!step) {
          // A result without its call (a trail cut by retention mid-turn): shown on its own.
          step = {
            kind: "tool",
            seq: event.seq,
            round: 0,
            callId,
            name: str(p.name) ?? "?",
            args: null,
            callSeq: null,
            resultSeq: null,
            ok: null,
            startMs: null,
            durationMs: null,
            result: null,
            passthrough: false,
            parallel: false,
            message: null,
          };
          tools.set(callId, step);
          keyed.push({ key: event.seq, step });
        }
        step.resultSeq = event.seq;
        step.ok = typeof p.ok === "boolean" ? p.ok : null;
        step.durationMs = num(p.durationMs);
        const at = atOf(event, turn);
        step.startMs =
          num(p.startMs) ?? (at !== null && step.durationMs !== null ? at - step.durationMs : null);
        const result = p.result;
        step.result =
          typeof result === "string" ? decodeJsonText(result) : { kind: "json", value: decodeNested(result) };
        step.message = addedMessageOf(p.message);
        break;
      }
      case "answer":
        answer = true;
        keyed.push({
          key: event.seq,
          step: {
            kind: "answer",
            seq: event.seq,
            text: str(p.text) ?? "",
            status: str(p.status) ?? turn.status,
          },
        });
        break;
      default: {
        const kind =
          event.type === "guardrail" ||
          event.type === "fallback" ||
          event.type === "error" ||
          event.type === "stop" ||
          event.type === "confirmation"
            ? event.type
            : "other";
        keyed.push({
          key: event.seq,
          step: { kind, seq: event.seq, type: event.type, atMs: atOf(event, turn), payload: p },
        });
      }
    }
  }
  if (!ordered.some((e) => e.type === "request")) missing.push("request");

  for (const list of toolsByRound.values()) for (const t of list) t.parallel = list.length > 1;

  // Model steps: recorded ones, else one per round from the ledger (an API call's one call, or an older turn).
  const recorded = models.size > 0;
  const roundCount = Math.max(turn.rounds, ...toolsByRound.keys(), ...models.keys(), 0);
  if (!recorded && roundCount > 0 && turn.status !== "interrupted") {
    if (turn.source !== "api") missing.push("model_calls");
    for (let r = 1; r <= roundCount; r++) models.set(r, inferredModelStep(turn, r, r === roundCount));
  }
  for (const [round, step] of models) {
    const calls = toolsByRound.get(round) ?? [];
    step.toolCalls = calls.flatMap((t) => (t.callSeq === null ? [] : [{ seq: t.callSeq, name: t.name }]));
    // Right before the round's first tool call (the model made them); a recorded call without tools at its seq.
    const firstCall = calls[0]?.callSeq ?? null;
    const key =
      firstCall !== null
        ? firstCall - 0.5
        : step.seq !== null
          ? step.seq
          : // An older turn's tool-less round: after the tools that came before it.
            (round === roundCount ? lastResultSeq : (toolsByRound.get(round - 1)?.at(-1)?.resultSeq ?? 1)) +
            0.5;
    keyed.push({ key, step });
  }

  // A turn recorded with its model calls that has no answer event showed none (it failed or stopped first).
  // An API call has no answer event by design, and a tool called over /mcp no model at all.
  const answerless = turn.source === "api" || turn.source === "mcp";
  if (!answer && !recorded && !answerless && turn.status !== "interrupted") missing.push("answer");

  keyed.sort((a, b) => a.key - b.key);
  const steps = keyed.map((k) => k.step);
  const { rows, totalMs, timed } = waterfallOf(turn, steps);
  if (!timed && turn.source !== "api" && steps.some((s) => s.kind === "tool")) missing.push("timings");
  return { steps, waterfall: rows, totalMs, missing };
}

/** The waterfall: model calls and tools as bars on the turn's clock, and the waiting between them. */
function waterfallOf(
  turn: ReplayTurn,
  steps: Step[],
): { rows: WaterfallRow[]; totalMs: number; timed: boolean } {
  const bars: WaterfallRow[] = [];
  for (const step of steps) {
    if (step.kind === "model" && step.startMs !== null && step.durationMs !== null)
      bars.push({
        key: `model-${step.round}`,
        kind: "model",
        label: step.servedModel ?? turn.requestedModel,
        startMs: step.startMs,
        durationMs: step.durationMs,
        firstTokenMs: step.firstTokenMs,
        seq: step.seq,
        ok: step.outcome === null ? null : step.outcome === "ok",
      });
    else if (step.kind === "tool" && step.startMs !== null && step.durationMs !== null)
      bars.push({
        key: `tool-${step.callId}`,
        kind: "tool",
        label: step.name,
        startMs: step.startMs,
        durationMs: step.durationMs,
        firstTokenMs: null,
        seq: step.callSeq ?? step.resultSeq,
        ok: step.ok,
      });
  }
  const end = Math.max(0, ...bars.map((b) => b.startMs + b.durationMs));
  const totalMs = Math.max(turn.latencyMs ?? 0, end);
  if (!bars.length) return { rows: [], totalMs, timed: false };

  // Waiting: stretches of the turn's clock where no model call or tool ran (preparing, storing, the loop).
  const spans = bars.map((b) => [b.startMs, b.startMs + b.durationMs] as const).sort((a, b) => a[0] - b[0]);
  const rows: WaterfallRow[] = [];
  let cursor = 0;
  let waits = 0;
  const gap = (from: number, to: number) => {
    if (to - from < MIN_WAIT_MS) return;
    rows.push({
      key: `wait-${waits++}`,
      kind: "wait",
      label: "",
      startMs: from,
      durationMs: to - from,
      firstTokenMs: null,
      seq: null,
      ok: null,
    });
  };
  for (const [from, to] of spans) {
    if (from > cursor) gap(cursor, from);
    cursor = Math.max(cursor, to);
  }
  gap(cursor, totalMs);
  // Bars in the order they started (parallel tools one under the other), each wait where it falls.
  const all = [...bars, ...rows].sort((a, b) => a.startMs - b.startMs || kindOrder(a) - kindOrder(b));
  return { rows: all, totalMs, timed: true };
}

const kindOrder = (row: WaterfallRow) => (row.kind === "wait" ? 0 : row.kind === "model" ? 1 : 2);

import "server-only";
import { SpanKind } from "@opentelemetry/api";
import { defined, endSpan, spanParent, tracing } from "@/lib/core/process/trace";
import type { Json } from "@/lib/gateway/translate/types";
import type { ChatMessage, GuardrailVerdict, Stamp } from "@/lib/gateway/types";
import { type GuardrailEngine, isDeterministic } from "@/lib/guardrails/engine";
import { Pseudonyms } from "@/lib/guardrails/pseudonymise";
import { GUARDRAIL_HEADER } from "@/lib/guardrails/report";
import { rulesFor } from "@/lib/guardrails/scope";
import {
  answerSegments,
  applySegments,
  requestSegments,
  TEXT_ANSWER_FORMATS,
  userTextPieces,
} from "@/lib/guardrails/segments";
import type { BlockedBy, RuleResult, StageResult, TextSegment } from "@/lib/guardrails/stage-result";
import { createStreamGuard, type StreamGuard } from "@/lib/guardrails/stream-guard";
import type { GuardrailPolicy, GuardrailRule, GuardrailSource, GuardrailStage } from "@/lib/guardrails/types";
import type { TurnSource } from "@/lib/turns/observer";
import { CALL_ERROR_STATUS } from "./errors";
import { guardedFrames, streamGuardable } from "./guardrail-stream";
import { type Call, emptyStamp, type Next, type PipelineEvent, type Step } from "./types";

/** Where a call came from, as a rule's scope names it (a prompt's playground run counts as the app's own). */
const SOURCE: Record<Exclude<TurnSource, "guardrail">, GuardrailSource> = {
  api: "v1",
  drawer: "drawer",
  playground: "drawer",
  schedule: "schedule",
  eval: "eval",
  mcp: "mcp",
};

/** The rules of a stage that apply to a call. */
function rulesOf(call: Call, policy: GuardrailPolicy, stage: GuardrailStage): GuardrailRule[] {
  return scopedRules(policy, stage, call.caller, call.request.model);
}

function scopedRules(
  policy: GuardrailPolicy,
  stage: GuardrailStage,
  caller: Call["caller"],
  alias: string,
): GuardrailRule[] {
  return rulesFor(policy, stage, {
    alias,
    keyId: caller.apiKeyId ?? undefined,
    userId: caller.userId ?? undefined,
    source: SOURCE[caller.source as Exclude<TurnSource, "guardrail">],
  });
}

/** A request's text as the audit keeps it: the in-scope deterministic redact rules of the input stage applied. */
export function redactedForAudit(
  engine: GuardrailEngine,
  policy: GuardrailPolicy,
  caller: Call["caller"],
  alias: string,
  text: string,
): string {
  const rules = scopedRules(policy, "input", caller, alias).filter(
    (rule) => rule.action === "redact" && isDeterministic(rule),
  );
  if (rules.length === 0) return text;
  const result = engine.evaluateSync("input", [{ text, origin: "user" }], rules);
  return result.texts[0] ?? text;
}

/**
 * The drawer's messages as the engine reads them, each with the number of segments it became: a user message is
 * cut into the user's words and the attached files and context items beside them (the indirect path); a tool's
 * result is its own origin.
 */
const ORIGIN = { system: "system", user: "user", assistant: "assistant", tool: "tool_result" } as const;
function messageSegments(messages: ChatMessage[]): { segments: TextSegment[]; counts: number[] } {
  const segments: TextSegment[] = [];
  const counts: number[] = [];
  for (const message of messages) {
    const pieces =
      message.role === "user"
        ? userTextPieces(message.content)
        : [{ text: message.content, origin: ORIGIN[message.role] }];
    segments.push(...pieces);
    counts.push(pieces.length);
  }
  return { segments, counts };
}

/** The call with its request's texts replaced (redacted), in its wire body or in its messages. */
function withTexts(call: Call, texts: string[], counts: number[]): Call {
  if (call.wire) {
    const segments = requestSegments(call.wire.format, call.wire.body);
    const body = applySegments(
      call.wire.body,
      segments.map((segment, index) => ({ path: segment.path, text: texts[index] ?? segment.text })),
    );
    return { ...call, wire: { ...call.wire, body } };
  }
  let at = 0;
  const messages = call.request.messages.map((message, index) => {
    const count = counts[index] ?? 1;
    const content = texts.slice(at, at + count).join("");
    at += count;
    return { ...message, content };
  }) as ChatMessage[];
  return { ...call, request: { ...call.request, messages } };
}

/** A stage's audit events and its header, as pipeline events (the refusal's own comes with the error). */
function* reported(
  result: Pick<StageResult, "events" | "headers" | "outcome" | "rules" | "stage">,
  verdict: Verdict,
  rules: readonly GuardrailRule[],
): Generator<PipelineEvent> {
  if (STRENGTH.indexOf(result.outcome) > STRENGTH.indexOf(verdict.value)) verdict.value = result.outcome;
  traceRules(result.stage, result.rules, rules);
  const header = result.headers[GUARDRAIL_HEADER];
  let first = true;
  for (const event of result.events) {
    yield {
      type: "guardrail",
      code: event.code,
      message: event.message,
      blocking: event.blocking,
      ...(first && header ? { header } : {}),
      outcome: result.outcome,
    };
    first = false;
  }
}

/**
 * One span per rule a stage ran (tracing on only), under the request's trace and timed by the rule's own duration:
 * its id, stage, check, what it did and how many hits; a check that could not run is an error span.
 */
function traceRules(
  stage: GuardrailStage,
  results: readonly RuleResult[],
  rules: readonly GuardrailRule[],
): void {
  const t = tracing();
  const parent = t && spanParent();
  if (!t || !parent) return;
  const now = Date.now();
  for (const result of results) {
    const span = t.tracer.startSpan(
      "tollgate.guardrail.check",
      {
        kind: SpanKind.INTERNAL,
        startTime: now - result.durationMs,
        attributes: defined({
          "tollgate.guardrail.rule_id": result.ruleId,
          "tollgate.guardrail.stage": stage,
          "tollgate.guardrail.check": rules.find((rule) => rule.id === result.ruleId)?.check.type,
          "tollgate.guardrail.action": result.action ?? "none",
          "tollgate.guardrail.hits": result.hits.length,
          "tollgate.guardrail.on_error": result.error?.onError,
        }),
      },
      parent,
    );
    endSpan(span, result.error ? "check_failed" : undefined, now);
  }
}

/** The error that ends a blocked call; `stamp` keeps what the provider was paid when it had answered. */
function blocked(call: Call, by: BlockedBy, stage: GuardrailStage, stamp?: Stamp): PipelineEvent {
  const where = stage === "output" ? "the answer" : "the request";
  const message =
    by.entity === "check_failed"
      ? `Blocked by the guardrail "${by.ruleName}" (rule ${by.ruleId}): its check on ${where} could not run.`
      : `Blocked by the guardrail "${by.ruleName}" (rule ${by.ruleId}): ${where} contains ${by.entity.replace(/_/g, " ")}.`;
  return {
    type: "error",
    error: { class: "guardrail_blocked", message, status: CALL_ERROR_STATUS.guardrail_blocked },
    stamp: stamp ?? emptyStamp(call.request.model),
  };
}

const callerOf = (call: Call) => ({
  tenantId: call.caller.tenantId,
  userId: call.caller.userId ?? null,
  apiKeyId: call.caller.apiKeyId ?? null,
});

/** The request's `response_format` JSON Schema, for an output `json_schema` rule that names none. */
function responseSchemaOf(call: Call): Record<string, unknown> | undefined {
  const format = call.wire?.body.response_format as Json | undefined;
  const schema = (format?.json_schema as Json | undefined)?.schema;
  return schema && typeof schema === "object" ? (schema as Record<string, unknown>) : undefined;
}

/**
 * The guardrails step: the tenant's input rules run over what goes to the model before anything is sent (a block
 * refuses the call, a redaction changes the request the provider gets), and its output rules over the answer, whole
 * or as it streams (a span held back, cut or redacted before it reaches the caller). Placeholders of reversible
 * redactions are turned back into the originals in what the caller gets. A check that cannot run does what its
 * rule's `onError` says, and says so: never a silent pass. Outermost, so a cached answer is checked too.
 */
export function guardrailStep(engine: GuardrailEngine): Step {
  const step: Step = async function* (call, next) {
    const policy = call.guardrails!;
    const pseudonyms = new Pseudonyms();
    const verdict: Verdict = { value: "passed" };
    let guarded = call;
    const input = rulesOf(call, policy, "input");
    if (input.length) {
      const drawer = call.wire ? undefined : messageSegments(call.request.messages);
      const segments = call.wire ? requestSegments(call.wire.format, call.wire.body) : drawer!.segments;
      const result = await engine.evaluate("input", segments, input, { pseudonyms, caller: callerOf(call) });
      yield* reported(result, verdict, input);
      if (result.blockedBy) return yield stamped(blocked(call, result.blockedBy, "input"), "blocked");
      if (result.outcome === "redacted") guarded = withTexts(call, result.texts, drawer?.counts ?? []);
    }
    const output = rulesOf(call, policy, "output");
    const events =
      output.length === 0 && pseudonyms.size === 0
        ? next(guarded)
        : answered(engine, guarded, next, { policy, output, pseudonyms, verdict }, responseSchemaOf(call));
    // The call's end carries what the rules made of it, for its ledger row.
    for await (const event of events) yield stamped(event, verdict.value);
  };
  // A guardrail's own model check is not checked again (it would check itself without end).
  step.applies = (call) => (call.guardrails?.rules.length ?? 0) > 0 && call.caller.source !== "guardrail";
  return step;
}

type Verdict = { value: GuardrailVerdict };
type OutputOptions = {
  policy: GuardrailPolicy;
  output: GuardrailRule[];
  pseudonyms: Pseudonyms;
  verdict: Verdict;
};

const STRENGTH: GuardrailVerdict[] = ["passed", "logged", "warned", "redacted", "blocked"];

/** A call's end (its answer or its error) with the guardrail verdict on its stamp. */
function stamped(event: PipelineEvent, verdict: GuardrailVerdict): PipelineEvent {
  if (event.type === "done")
    return {
      ...event,
      response: { ...event.response, stamp: { ...event.response.stamp, guardrail: verdict } },
    };
  if (event.type === "error") return { ...event, stamp: { ...event.stamp, guardrail: verdict } };
  return event;
}

/** The answer, by the kind of call: a /v1 JSON answer, a /v1 stream, or the drawer's. */
function answered(
  engine: GuardrailEngine,
  call: Call,
  next: Next,
  options: OutputOptions,
  responseSchema: Record<string, unknown> | undefined,
): AsyncGenerator<PipelineEvent> {
  if (call.wire && !call.wire.stream) return wholeAnswer(engine, call, next, options, responseSchema);
  if (call.wire) return wireStream(engine, call, next, options);
  return drawerAnswer(engine, call, next, options);
}

/** A /v1 JSON answer: checked whole (every rule, model and webhook too) before a byte of it is sent. */
async function* wholeAnswer(
  engine: GuardrailEngine,
  call: Call,
  next: Next,
  { output, pseudonyms, verdict }: OutputOptions,
  responseSchema: Record<string, unknown> | undefined,
): AsyncGenerator<PipelineEvent> {
  const format = call.wire!.format;
  let text = "";
  for await (const event of next(call)) {
    if (event.type === "bytes") {
      text += event.data;
      continue;
    }
    if (event.type !== "done") {
      yield event;
      continue;
    }
    let answer: Json | undefined;
    try {
      answer = JSON.parse(text) as Json;
    } catch {
      answer = undefined;
    }
    // A transcript in a text format (text, srt, vtt) is read whole; JSON answers by their text fields.
    const plain = answer === undefined && TEXT_ANSWER_FORMATS.has(format);
    const segments = answer
      ? answerSegments(format, answer)
      : plain
        ? [{ text, origin: "output" as const, path: [] }]
        : [];
    if (segments.length) {
      const result = output.length
        ? await engine.evaluate("output", segments, output, { responseSchema, caller: callerOf(call) })
        : undefined;
      if (result) {
        yield* reported(result, verdict, output);
        if (result.blockedBy) return yield blocked(call, result.blockedBy, "output", event.response.stamp);
      }
      const texts = segments.map((segment, index) =>
        pseudonyms.restore(result?.texts[index] ?? segment.text),
      );
      if (texts.some((t, index) => t !== segments[index]!.text))
        text = !answer
          ? texts[0]!
          : JSON.stringify(
              applySegments(
                answer,
                segments.map((segment, index) => ({ path: segment.path, text: texts[index]! })),
              ),
            );
    }
    yield { type: "bytes", data: text };
    yield event;
  }
}

function streamGuardOf(engine: GuardrailEngine, { policy, output }: OutputOptions): () => StreamGuard {
  // Model and webhook rules cannot follow a stream as it flows; they are left to whole answers.
  const rules = output.filter(isDeterministic);
  return () => createStreamGuard({ engine, rules, holdBackChars: policy.holdBackChars });
}

/**
 * A /v1 stream, in its caller's framing. A block cuts it before the span; the call's usage still comes from the
 * provider's whole answer, read to its end without being sent, so the ledger has what was paid.
 */
async function* wireStream(
  engine: GuardrailEngine,
  call: Call,
  next: Next,
  options: OutputOptions,
): AsyncGenerator<PipelineEvent> {
  const format = call.wire!.format;
  if (!streamGuardable(format)) return yield* next(call);
  const frames = guardedFrames(format, streamGuardOf(engine, options), options.pseudonyms);
  let cut: BlockedBy | undefined;
  for await (const event of next(call)) {
    if (cut) {
      if (event.type === "done" || event.type === "error")
        return yield blocked(call, cut, "output", event.type === "done" ? event.response.stamp : event.stamp);
      continue;
    }
    if (event.type === "bytes") {
      const data = frames.push(event.data);
      if (data) yield { type: "bytes", data };
      if (frames.blockedBy) {
        cut = frames.blockedBy;
        yield* streamReport(frames.guards(), options.verdict, options.output);
      }
      continue;
    }
    if (event.type === "done" || event.type === "error") {
      const tail = frames.end();
      if (tail) yield { type: "bytes", data: tail };
      yield* streamReport(frames.guards(), options.verdict, options.output);
      if (frames.blockedBy && event.type === "done")
        return yield blocked(call, frames.blockedBy, "output", event.response.stamp);
    }
    yield event;
  }
}

/** What the stream guards did, once, as the stage's events and header. */
function* streamReport(
  guards: StreamGuard[],
  verdict: Verdict,
  rules: readonly GuardrailRule[],
): Generator<PipelineEvent> {
  for (const guard of guards) yield* reported(guard.report(), verdict, rules);
}

/** The drawer's answer: its text deltas through the guard, the stored message what the user saw. */
async function* drawerAnswer(
  engine: GuardrailEngine,
  call: Call,
  next: Next,
  options: OutputOptions,
): AsyncGenerator<PipelineEvent> {
  const guard = streamGuardOf(engine, options)();
  const restore = options.pseudonyms.restorer();
  let emitted = "";
  let cut: BlockedBy | undefined;
  const release = (text: string) => {
    const out = restore.push(text);
    emitted += out;
    return out;
  };
  for await (const event of next(call)) {
    if (cut) {
      if (event.type === "done" || event.type === "error")
        return yield blocked(call, cut, "output", event.type === "done" ? event.response.stamp : event.stamp);
      continue;
    }
    if (event.type === "text") {
      const out = release(guard.push(event.delta));
      if (out) yield { type: "text", delta: out };
      if (guard.blockedBy) {
        cut = guard.blockedBy;
        yield* reported(guard.report(), options.verdict, options.output);
      }
      continue;
    }
    if (event.type === "done") {
      // A whole (not streamed) answer comes as `done` alone: its text goes through the guard here.
      const whole = !call.stream ? event.response.message.content : "";
      let out = whole ? release(guard.push(whole)) : "";
      out += release(guard.end());
      const rest = restore.end();
      emitted += rest;
      out += rest;
      yield* reported(guard.report(), options.verdict, options.output);
      // What came before a span the end found is the answer's, up to the cut.
      if (out && call.stream) yield { type: "text", delta: out };
      if (guard.blockedBy) return yield blocked(call, guard.blockedBy, "output", event.response.stamp);
      yield {
        type: "done",
        response: { ...event.response, message: { ...event.response.message, content: emitted } },
      };
      continue;
    }
    yield event;
  }
}

/**
 * Output rules on a stream: text deltas go in, deltas safe to emit come out. The guard holds back the last
 * `holdBackChars` characters (default 256) so a span of up to that length is seen whole before its first character
 * leaves: a block cuts the stream just before it, a redaction replaces it. Each scan covers only the text since the
 * last safe point plus `holdBackChars` of already-emitted context, and runs once at least `holdBackChars` new
 * characters are pending, so the cost is linear in the stream's length. The bound: a span longer than
 * `holdBackChars` may have started leaving before it is recognised (its rest is still redacted or blocked).
 * Only deterministic rules can guard a stream; model and webhook rules judge the whole answer after it.
 */
import { type GuardrailEngine, outcomeOf } from "./engine";
import type { Pseudonyms } from "./pseudonymise";
import { type RedactionSpan, redactText } from "./redact";
import { stageReport } from "./report";
import type { BlockedBy, RuleResult, SegmentHit, StageResult } from "./stage-result";
import type { GuardrailRule } from "./types";

export const DEFAULT_HOLD_BACK_CHARS = 256;

export type StreamGuardOptions = {
  engine: Pick<GuardrailEngine, "evaluateSync">;
  /** The call's output rules with deterministic checks. */
  rules: readonly GuardrailRule[];
  holdBackChars?: number;
  pseudonyms?: Pseudonyms;
};

export type StreamReport = Omit<StageResult, "texts">;

export type StreamGuard = {
  /** The part of what has arrived that is safe to emit now ("" while it is held back or after a block). */
  push(delta: string): string;
  /** The rest, after a final check of the tail. */
  end(): string;
  readonly blockedBy: BlockedBy | undefined;
  /** What the rules did over the whole stream (hit offsets are in the original stream). */
  report(): StreamReport;
};

export function createStreamGuard(options: StreamGuardOptions): StreamGuard {
  const { engine, rules, pseudonyms } = options;
  const holdBack = Math.max(1, options.holdBackChars ?? DEFAULT_HOLD_BACK_CHARS);
  const results: RuleResult[] = rules.map((rule) => ({
    ruleId: rule.id,
    ruleName: rule.name,
    hits: [],
    durationMs: 0,
  }));
  const recorded = new Set<string>();
  let context = "";
  let pending = "";
  let consumed = 0;
  let blockedBy: BlockedBy | undefined;

  function advance(final: boolean): string {
    if (blockedBy || pending === "") return "";
    const offset = context.length;
    // No pseudonyms here: the window's tail may hold half a span, which must not be numbered as an original.
    const scan = engine.evaluateSync("output", [{ text: context + pending, origin: "output" }], rules);
    const limit = final ? pending.length : pending.length - holdBack;
    const found = scan.rules.flatMap((result, index) =>
      result.hits
        .map((hit) => ({
          hit,
          index,
          action: result.action,
          start: hit.start - offset,
          end: hit.end - offset,
        }))
        .filter((span) => span.end > 0),
    );
    const failedClosed = scan.rules.findIndex((result) => result.error?.onError === "closed");
    scan.rules.forEach((result, index) => {
      if (result.error) results[index]!.error ??= result.error;
    });

    const blocks = found.filter((span) => span.action === "block").sort((a, b) => a.start - b.start);
    let cut = extendOverRedactions(found, limit, pending.length);
    let blockingRule: number | undefined;
    if (failedClosed !== -1) {
      cut = 0;
      blockingRule = failedClosed;
    } else if (blocks.length > 0) {
      cut = Math.max(0, blocks[0]!.start);
      blockingRule = blocks[0]!.index;
    }

    const spans: RedactionSpan[] = [];
    for (const span of found) {
      if (span.start >= cut && !(blockingRule !== undefined && span.action === "block")) continue;
      record(span.index, span.action, {
        ...span.hit,
        start: span.hit.start - offset + consumed,
        end: span.hit.end - offset + consumed,
      });
      if (span.action === "redact")
        spans.push({
          ...span.hit,
          start: Math.max(0, span.start),
          end: Math.min(span.end, cut),
          reversible: rules[span.index]!.reversible === true,
        });
    }
    const emitted = redactText(pending.slice(0, cut), spans, pseudonyms);
    if (blockingRule !== undefined) {
      const result = results[blockingRule]!;
      blockedBy = {
        ruleId: result.ruleId,
        ruleName: result.ruleName,
        entity: result.error ? "check_failed" : (blocks[0]?.hit.entity ?? "blocked"),
      };
    }
    context = (context + pending.slice(0, cut)).slice(-holdBack);
    pending = pending.slice(cut);
    consumed += cut;
    return emitted;
  }

  function record(index: number, action: RuleResult["action"], hit: SegmentHit) {
    const key = `${index}:${hit.start}:${hit.entity}`;
    if (recorded.has(key)) return;
    recorded.add(key);
    results[index]!.hits.push(hit);
    results[index]!.action = action;
  }

  return {
    push(delta) {
      if (blockedBy) return "";
      pending += delta;
      return pending.length >= 2 * holdBack ? advance(false) : "";
    },
    end() {
      return advance(true);
    },
    get blockedBy() {
      return blockedBy;
    },
    report() {
      return {
        stage: "output",
        outcome: outcomeOf(results),
        rules: results,
        blockedBy,
        ...stageReport("output", results),
      };
    },
  };
}

type FoundSpan = { action: RuleResult["action"]; start: number; end: number };

/**
 * Moves the cut past a redaction span that straddles it and ends inside what has arrived, so the span is replaced
 * by one placeholder; a span that runs to the end of what has arrived (longer than the hold-back) is cut in two.
 */
function extendOverRedactions(found: readonly FoundSpan[], limit: number, available: number): number {
  let cut = limit;
  let moved = true;
  while (moved) {
    moved = false;
    for (const span of found) {
      if (span.action === "redact" && span.start < cut && span.end > cut && span.end < available) {
        cut = span.end;
        moved = true;
      }
    }
  }
  return cut;
}

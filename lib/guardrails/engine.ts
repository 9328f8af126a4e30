/**
 * The guardrail engine: runs a stage's rules over a call's text segments and says what the policy made of them —
 * the outcome, each rule's hits (spans only: no matched text is kept), the redacted texts, what blocked, the
 * headers for the caller and the events for the audit. Deterministic checks run synchronously; model and webhook
 * checks run concurrently, each under its own timeout. A check that cannot run never passes silently: its rule's
 * `onError` blocks (`closed`) or passes and says so (`open`).
 */
import type { Pseudonyms } from "./pseudonymise";
import { type RedactionSpan, redactText } from "./redact";
import { stageReport } from "./report";
import type { BlockedBy, RuleResult, SegmentHit, StageResult, TextSegment } from "./stage-result";
import type {
  GuardrailAction,
  GuardrailCheck,
  GuardrailHit,
  GuardrailOutcome,
  GuardrailRule,
  GuardrailStage,
  TextCheck,
  TextOrigin,
} from "./types";

/** What a model or webhook check is asked about one segment. */
export type AsyncCheckInput = {
  rule: GuardrailRule;
  stage: GuardrailStage;
  text: string;
  origin: TextOrigin;
  signal: AbortSignal;
  /** Whose call it is (a model check's own call is billed to the same tenant). */
  caller?: GuardrailCaller;
};

/** Whose call a stage runs for, as a model check needs it (its judge's call is that tenant's). */
export type GuardrailCaller = { tenantId: string; userId: string | null; apiKeyId: string | null };

/** What a model or webhook check found: hits, and optionally an action of its own (a webhook's block or redact). */
export type CheckFinding = { hits: GuardrailHit[]; action?: "block" | "redact" };

type ModelCheck = Extract<GuardrailCheck, { type: "model" }>;
type WebhookCheck = Extract<GuardrailCheck, { type: "webhook" }>;

export type EngineDependencies = {
  compile: (check: GuardrailCheck) => TextCheck;
  jsonSchema: (text: string, schema: Record<string, unknown>) => GuardrailHit[];
  model: (check: ModelCheck, input: AsyncCheckInput) => Promise<CheckFinding>;
  webhook: (check: WebhookCheck, input: AsyncCheckInput) => Promise<CheckFinding>;
  /** Milliseconds, for each rule's duration. */
  now: () => number;
  /** A model check's time limit (webhooks carry their own); default 15 000 ms. */
  modelTimeoutMs?: number;
  /** Compiled checks kept; default 256. */
  cacheSize?: number;
};

export type EvaluateOptions = {
  /** The call's pseudonyms: reversible redact rules number their placeholders in it. */
  pseudonyms?: Pseudonyms;
  /** The request's `response_format` schema, for an output `json_schema` check that names none. */
  responseSchema?: Record<string, unknown>;
  caller?: GuardrailCaller;
};

export const WEBHOOK_DEFAULT_TIMEOUT_MS = 2000;
export const WEBHOOK_MAX_TIMEOUT_MS = 10_000;
const MODEL_DEFAULT_TIMEOUT_MS = 15_000;
const ACTION_STRENGTH: Record<GuardrailAction, number> = { block: 3, redact: 2, warn: 1, log: 0 };

/** Checks that answer synchronously; only these can guard a stream as it flows. */
export function isDeterministic(rule: GuardrailRule): boolean {
  return rule.check.type !== "model" && rule.check.type !== "webhook";
}

export function webhookTimeoutMs(check: WebhookCheck): number {
  return Math.min(Math.max(check.timeoutMs ?? WEBHOOK_DEFAULT_TIMEOUT_MS, 1), WEBHOOK_MAX_TIMEOUT_MS);
}

export type GuardrailEngine = ReturnType<typeof createGuardrailEngine>;

export function createGuardrailEngine(dependencies: EngineDependencies) {
  const compiled = new CompiledChecks(dependencies.compile, dependencies.cacheSize ?? 256);

  function runDeterministic(
    rule: GuardrailRule,
    segments: readonly TextSegment[],
    options: EvaluateOptions,
  ): RuleResult {
    const started = dependencies.now();
    try {
      const hits = segments.flatMap((segment, index) =>
        deterministicHits(rule, segment, options).map((hit) => ({ ...hit, segment: index })),
      );
      return ruleResult(rule, hits, undefined, started);
    } catch (error) {
      return failedResult(rule, error, started);
    }
  }

  function deterministicHits(rule: GuardrailRule, segment: TextSegment, options: EvaluateOptions) {
    const check = rule.check;
    if (check.type === "json_schema")
      return dependencies.jsonSchema(segment.text, check.schema ?? options.responseSchema ?? {});
    return compiled.get(rule)(segment.text, segment.origin);
  }

  async function runAsync(
    rule: GuardrailRule,
    stage: GuardrailStage,
    segments: readonly TextSegment[],
    caller: GuardrailCaller | undefined,
  ): Promise<RuleResult> {
    const started = dependencies.now();
    const check = rule.check;
    const timeoutMs =
      check.type === "webhook"
        ? webhookTimeoutMs(check)
        : (dependencies.modelTimeoutMs ?? MODEL_DEFAULT_TIMEOUT_MS);
    try {
      const findings = await Promise.all(
        segments.map((segment) =>
          withTimeout(timeoutMs, `the ${check.type} check timed out after ${timeoutMs} ms`, (signal) => {
            const input = { rule, stage, text: segment.text, origin: segment.origin, signal, caller };
            if (check.type === "model") return dependencies.model(check, input);
            if (check.type === "webhook") return dependencies.webhook(check, input);
            throw new Error(`a ${check.type} check is not asynchronous`);
          }),
        ),
      );
      const hits = findings.flatMap((finding, index) =>
        finding.hits.map((hit) => ({ ...hit, segment: index })),
      );
      const asked = findings.map((finding) => finding.action).filter((action) => action !== undefined);
      return ruleResult(rule, hits, strongest(asked), started);
    } catch (error) {
      return failedResult(rule, error, started);
    }
  }

  function ruleResult(
    rule: GuardrailRule,
    hits: SegmentHit[],
    asked: GuardrailAction | undefined,
    started: number,
  ): RuleResult {
    const durationMs = dependencies.now() - started;
    const base = { ruleId: rule.id, ruleName: rule.name, hits, durationMs };
    if (hits.length === 0 && asked !== "block") return base;
    return { ...base, action: strongest(asked ? [rule.action, asked] : [rule.action]) };
  }

  function failedResult(rule: GuardrailRule, error: unknown, started: number): RuleResult {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ruleId: rule.id,
      ruleName: rule.name,
      hits: [],
      error: { message, onError: rule.onError },
      durationMs: dependencies.now() - started,
    };
  }

  /** Deterministic rules only (a stream's window); a model or webhook rule here is a programming error. */
  function evaluateSync(
    stage: GuardrailStage,
    segments: readonly TextSegment[],
    rules: readonly GuardrailRule[],
    options: EvaluateOptions = {},
  ): StageResult {
    const results = rules.map((rule) => {
      if (!isDeterministic(rule)) throw new Error(`rule ${rule.id} has an asynchronous check`);
      return runDeterministic(rule, segments, options);
    });
    return decide(stage, segments, rules, results, options);
  }

  async function evaluate(
    stage: GuardrailStage,
    segments: readonly TextSegment[],
    rules: readonly GuardrailRule[],
    options: EvaluateOptions = {},
  ): Promise<StageResult> {
    const results = await Promise.all(
      rules.map((rule) =>
        isDeterministic(rule)
          ? runDeterministic(rule, segments, options)
          : runAsync(rule, stage, segments, options.caller),
      ),
    );
    return decide(stage, segments, rules, results, options);
  }

  return { evaluate, evaluateSync };
}

/** The outcome of the rules' results: the first block wins; otherwise redactions are applied to the texts. */
function decide(
  stage: GuardrailStage,
  segments: readonly TextSegment[],
  rules: readonly GuardrailRule[],
  results: RuleResult[],
  options: EvaluateOptions,
): StageResult {
  const blockedBy = firstBlock(results);
  const texts = segments.map((segment) => segment.text);
  if (!blockedBy) {
    const spansBySegment = texts.map((): RedactionSpan[] => []);
    results.forEach((result, index) => {
      if (result.action !== "redact") return;
      for (const hit of result.hits)
        spansBySegment[hit.segment]!.push({ ...hit, reversible: rules[index]!.reversible === true });
    });
    spansBySegment.forEach((spans, index) => {
      texts[index] = redactText(texts[index]!, spans, options.pseudonyms);
    });
  }
  const outcome = outcomeOf(results);
  return { stage, outcome, rules: results, texts, blockedBy, ...stageReport(stage, results) };
}

function firstBlock(results: readonly RuleResult[]): BlockedBy | undefined {
  for (const result of results) {
    const failedClosed = result.error?.onError === "closed";
    if (result.action !== "block" && !failedClosed) continue;
    const entity = failedClosed ? "check_failed" : (result.hits[0]?.entity ?? "blocked");
    return { ruleId: result.ruleId, ruleName: result.ruleName, entity };
  }
  return undefined;
}

/** The outcome of a stage's rule results: the strongest action taken, a check failed closed counting as a block. */
const OUTCOME_OF_ACTION: Record<GuardrailAction, GuardrailOutcome> = {
  block: "blocked",
  redact: "redacted",
  warn: "warned",
  log: "logged",
};

export function outcomeOf(results: readonly RuleResult[]): GuardrailOutcome {
  const actions = results.flatMap((result) => {
    if (result.error?.onError === "closed") return ["block" as const];
    return result.action ? [result.action] : [];
  });
  const action = strongest(actions);
  return action ? OUTCOME_OF_ACTION[action] : "passed";
}

function strongest(actions: readonly GuardrailAction[]): GuardrailAction | undefined {
  let best: GuardrailAction | undefined;
  for (const action of actions) if (!best || ACTION_STRENGTH[action] > ACTION_STRENGTH[best]) best = action;
  return best;
}

/** Runs `task` with an abort signal that fires, and a rejection, after `timeoutMs`. */
async function withTimeout<T>(timeoutMs: number, message: string, task: (signal: AbortSignal) => Promise<T>) {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(message);
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    const value = await Promise.race([task(controller.signal), timedOut]);
    // A check that settles on abort (with "no hits", say) must not count as having passed the text.
    if (controller.signal.aborted) throw controller.signal.reason;
    return value;
  } finally {
    clearTimeout(timer);
  }
}

/** Compiled checks by rule id and check, least recently used dropped first (a Map keeps insertion order). */
class CompiledChecks {
  readonly #entries = new Map<string, TextCheck>();
  constructor(
    private readonly compile: (check: GuardrailCheck) => TextCheck,
    private readonly capacity: number,
  ) {}

  get(rule: GuardrailRule): TextCheck {
    const key = `${rule.id}\u0000${JSON.stringify(rule.check)}`;
    const cached = this.#entries.get(key);
    if (cached) {
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      return cached;
    }
    const check = this.compile(rule.check);
    this.#entries.set(key, check);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return check;
  }
}

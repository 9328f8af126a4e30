import { SpanKind } from "@opentelemetry/api";
import { endSpan, spanParent, tracing } from "@/lib/core/process/trace";
import type { Next, PipelineEvent, Step } from "./types";

/**
 * A step with its span (tracing on only: the pipeline wraps its steps with this when a tracer is installed):
 * `tollgate.<label>` from the step's start to the moment it hands the call on (its own check), or to its end when
 * it answers or refuses the call itself. Outcome: `pass`, `refused` (a blocking guardrail), `answered` (e.g. a
 * cache hit). No span where no request's trace is running (a worker's call starts its own at its turn).
 */
export function tracedStep(step: Step): Step {
  const label = step.label ?? "step";
  const traced: Step = async function* (call, next) {
    const t = tracing();
    const parent = t && spanParent();
    if (!t || !parent) return yield* step(call, next);
    const span = t.tracer.startSpan(
      `tollgate.${label}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { "tollgate.step": label, "tollgate.tenant_id": call.caller.tenantId },
      },
      parent,
    );
    let open = true;
    let refused = false;
    const close = (outcome: string) => {
      if (!open) return;
      open = false;
      span.setAttribute("tollgate.step.outcome", outcome);
      endSpan(span, outcome === "refused" ? "refused" : undefined);
    };
    const handOn: Next = (c) => {
      close("pass");
      return next(c);
    };
    try {
      for await (const event of step(call, handOn) as AsyncGenerator<PipelineEvent>) {
        if (open && event.type === "guardrail" && event.blocking) refused = true;
        // The step ended the call itself: closed now, since a caller may stop reading at its last event.
        if (open && (event.type === "error" || event.type === "done"))
          close(refused ? "refused" : "answered");
        yield event;
      }
    } finally {
      close(refused ? "refused" : "answered");
    }
  };
  return Object.assign(traced, { applies: step.applies, label });
}

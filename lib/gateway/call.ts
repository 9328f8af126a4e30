import type { AdapterRequest, AdapterResult, ModelAdapter } from "./adapters/adapter";
import type { GatewayConfig } from "./config";
import { GatewayError } from "./errors";
import type { NativeProvider } from "./native/types";
import type { GatewayCall, Router, ServingCandidate } from "./routing";
import { type ChatRequest, type Stamp, type StreamEvent, ZERO_USAGE } from "./types";

/** What the streaming and forwarding code needs from the Gateway that runs the call. */
export type CallContext = {
  config: GatewayConfig;
  router: Router;
  adapterFor(serving: ServingCandidate): ModelAdapter;
  /** A bearer token for the candidate's provider where it signs in with one (Entra ID), else undefined. */
  bearerToken(serving: ServingCandidate, signal: AbortSignal): Promise<string> | undefined;
  /** Offline and test-injected providers answer a wire request in-process, not over HTTP. */
  answersInProcess(serving: ServingCandidate): boolean;
  /** The candidate's native API (Bedrock), reached through OpenAI chat; undefined for the other types. */
  native(serving: ServingCandidate): NativeProvider | undefined;
  stamp(
    call: GatewayCall,
    serving: ServingCandidate | null,
    servedModel: string | null,
    usage: AdapterResult["usage"],
    firstTokenMs: number | null,
  ): Stamp;
};

/** The request an adapter gets for a chat request, without the tools when the candidate cannot take them. */
export function adapterRequestFor(req: ChatRequest, serving: ServingCandidate): AdapterRequest {
  return {
    model: serving.candidate.model,
    messages: req.messages,
    tools: serving.toolsDropped ? undefined : req.tools,
    toolChoice: serving.toolsDropped ? undefined : req.toolChoice,
    temperature: req.temperature,
    maxTokens: req.maxTokens,
  };
}

/** The `error` event of a call no candidate answered (nothing was served). */
export function callFailedEvent(ctx: CallContext, call: GatewayCall, error: unknown): StreamEvent {
  const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
  const stamp = ctx.stamp(call, null, null, ZERO_USAGE, null);
  if (e.contentFilter) stamp.contentFilter = e.contentFilter;
  return {
    type: "error",
    error: {
      class: e.errorClass,
      message: e.message,
      status: e.status,
      ...(e.param ? { param: e.param } : {}),
    },
    stamp,
  };
}

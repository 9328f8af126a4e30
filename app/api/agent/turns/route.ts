import { getDb } from "@/db";
import { sendTurnInput } from "@/features/drawer/contracts";
import { linkFilesToConversation } from "@/features/drawer/server/files";
import { resolveTurnExtras } from "@/features/drawer/server/turn-extras";
import { assistantPrompt } from "@/features/prompts/server/assistant";
import { sseResponse } from "@/lib/agent/sse";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import {
  createConversation,
  getConversationOrThrow,
  lastTurnOrThrow,
  supersedeTurn,
} from "@/lib/governance/conversations";
import { readJson } from "@/lib/http/route";
import { tracedRoute } from "@/lib/observability";
import { container } from "@/server/container";

/**
 * Sends a message and streams the turn back as server-sent events: turn, text, tool_call, tool_result,
 * notice, guardrail, message, error, done. Closing the connection, or POST …/turns/:id/stop, is Stop.
 * Edit (`replace: "last"`) and regenerate replace the last turn: its messages are marked superseded by the new
 * turn once the turn has its id (before the agent reads the history), never deleted.
 */
const send = withUser(async (req, { auth }) => {
  const input = await readJson(req, sendTurnInput);
  const tenant = activeTenantOrThrow(auth);
  const app = container();
  const gateway = app.gateway;
  const db = await getDb();
  // The tenant's own `assistant` prompt (prompt store, label production) when it has one; its model is the
  // default when the user picked none.
  const assistant = await assistantPrompt(db, tenant.id, {
    tenant: tenant.name,
    user: auth.user.name || auth.user.email,
  });
  // A stored model that is not (or no longer) an alias is passed over rather than failing every turn.
  const stored = assistant?.model && gateway.hasModel(assistant.model) ? assistant.model : undefined;
  const model = input.model ?? stored ?? gateway.defaultModel;
  if (!gateway.hasModel(model)) {
    throw new AppError("validation_failed", `unknown model "${model}"`, {
      fields: { model: [`choose one of: ${gateway.modelAliases().join(", ")}`] },
    });
  }
  const modelInfo = gateway.models().find((m) => m.alias === model)!;
  const owner = { tenantId: tenant.id, userId: auth.user.id };
  const existing = input.conversationId
    ? await getConversationOrThrow(db, { ...owner, id: input.conversationId })
    : null;
  // The schema makes sure edit and regenerate name their conversation.
  const replaced =
    existing && (input.replace || input.regenerate)
      ? await lastTurnOrThrow(db, { tenantId: tenant.id, conversationId: existing.id })
      : null;
  // The schema makes sure a message comes with everything but a regenerate.
  const message = input.regenerate && replaced ? replaced.message : input.message!;
  // Context items, attachments and the admins' schema context, resolved before the turn (and before a new
  // conversation is made): a refusal sends nothing. A regenerate asks again with what the message had.
  const extras = await resolveTurnExtras({
    db,
    auth,
    tenant,
    request: input,
    model: modelInfo,
    ...(input.regenerate && replaced?.data ? { carried: replaced.data } : {}),
  });
  // The conversation exists before the first model call, so the ledger row can point at it.
  const conversation = existing ?? (await createConversation(db, { ...owner, model }));

  // A file goes with the conversation it was first sent in (deleting the conversation deletes it).
  if (input.attachments?.length) await linkFilesToConversation(db, owner, input.attachments, conversation.id);

  const controller = new AbortController();
  req.signal.addEventListener("abort", () => controller.abort(new Error("the client went away")), {
    once: true,
  });
  const events = app.agent.agent.send(
    { ...owner, role: tenant.role, conversationId: conversation.id },
    {
      message,
      model,
      enableTools: input.enableTools,
      source: "drawer",
      system: assistant
        ? { text: assistant.system, prompt: assistant.prompt, toolSets: assistant.toolSets }
        : undefined,
      ...(extras ? { extras } : {}),
      ...(replaced
        ? { replaces: { turnId: replaced.turnId, action: input.regenerate ? "regenerate" : "edit" } }
        : {}),
    },
    controller.signal,
  );
  async function* withStopRegistration() {
    let unregister = () => {};
    try {
      for await (const event of events) {
        if (event.type === "turn") {
          // A Stop that lands on any instance reaches the turn here (the cluster bus).
          unregister = app.agent.turns.register(event.turnId, owner, controller);
          // The agent reads the history only after this event is taken, so the new turn never sees the old.
          if (replaced)
            await supersedeTurn(db, {
              tenantId: tenant.id,
              conversationId: conversation.id,
              turnId: replaced.turnId,
              by: event.turnId,
            });
        }
        yield event;
      }
    } finally {
      unregister();
    }
  }
  return sseResponse(withStopRegistration(), { "x-conversation-id": conversation.id });
});

/** Tracing on: the turn is one trace under its HTTP server span (a caller's traceparent honoured). */
export const POST = tracedRoute(send);

"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { MessageInputs, TurnFeedback } from "@/features/drawer/contracts";
import { ApiError, errorFromResponse } from "@/lib/client/api";
import { agentApi } from "./api";
import { applyEvent, endTurn, lastReplaceable, newTurn, turnsFromHistory, withLedger } from "./chat-view";
import { chipRefs } from "./context-chips";
import { readEventBatches } from "./sse";
import { readStored, STORAGE_KEYS, writeStored } from "./storage";
import type { ChatTurn, PendingNotice, ReplaceMode, TurnError } from "./types";

type Run = { key: string; controller: AbortController; turnId: string | null; stopRequested: boolean };

/** How long Stop waits for the server to end the stream before it stops reading on its own. */
const STOP_GRACE_MS = 5_000;
/** Footers are fetched for this many of the latest turns of a loaded conversation. */
const FOOTERS_IN_VIEW = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * While a conversation's background tasks run, the drawer looks for their results this often (every
 * PENDING_POLL_MS for the first PENDING_FAST_MS, then every PENDING_SLOW_MS), and gives up after PENDING_MAX_MS:
 * a result that arrives shows at once, and an idle drawer costs one small read a few seconds apart.
 */
export const PENDING_POLL_MS = 1_500;
const PENDING_FAST_MS = 60_000;
const PENDING_SLOW_MS = 5_000;
const PENDING_MAX_MS = 30 * 60_000;

/**
 * When to look again for a conversation's pending notices, or null to stop: while tasks run, and once more after
 * the last one ended (its notice is written just after it ends); after a failed look, a little later.
 */
export function nextPendingLook(look: {
  tasks: number | null;
  sawTasks: boolean;
  elapsedMs: number;
}): number | null {
  if (look.elapsedMs >= PENDING_MAX_MS) return null;
  const interval = look.elapsedMs < PENDING_FAST_MS ? PENDING_POLL_MS : PENDING_SLOW_MS;
  if (look.tasks === null) return PENDING_SLOW_MS;
  if (look.tasks > 0 || look.sawTasks) return interval;
  return null;
}

/** When the server sends no Retry-After with a 429, Retry waits this long. */
const DEFAULT_RETRY_AFTER_S = 5;
/** How long a 503 without Retry-After waits before Retry is offered. */
const DEFAULT_UNAVAILABLE_RETRY_S = 2;

/** The server's own words for a refusal: the field messages of a 422 ("the message is too long…"), else its message. */
export function refusalMessage(error: ApiError): string {
  const fields = Object.values(error.fields).flat();
  return fields.length ? fields.join("; ") : error.message;
}

/**
 * How a failed request reads and whether Retry helps: 5xx and network failures are retryable, a 429 after its
 * wait (`retryAfterSeconds`, from the Retry-After header), any other 4xx is a refusal with the server's message.
 * A 503 (the service briefly away: its database or counter store) says so and offers Retry after its wait; the
 * user's message stays in the turn, so nothing they wrote is lost.
 */
export function toTurnError(error: unknown, retryAfterSeconds?: number, now = Date.now()): TurnError {
  if (!(error instanceof ApiError) || error.status === 0) return { kind: "network" };
  if (error.status === 401) return { kind: "signedOut" };
  if (error.status === 429) {
    const wait = retryAfterSeconds ?? DEFAULT_RETRY_AFTER_S;
    return { kind: "rateLimited", message: error.message, retryAt: now + wait * 1000 };
  }
  if (error.status >= 400 && error.status < 500) return { kind: "refused", message: refusalMessage(error) };
  if (error.status === 503)
    return { kind: "unavailable", retryAt: now + (retryAfterSeconds ?? DEFAULT_UNAVAILABLE_RETRY_S) * 1000 };
  return { kind: "failed", message: error.message };
}

const retryAfterOf = (res: Response): number | undefined => {
  const seconds = Number(res.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
};

/**
 * The chat of one user in one tenant (`scope`): the current conversation, its turns, sending over SSE,
 * Stop, and footers for answers loaded from history. The conversation id is remembered per scope.
 */
export function useAgentChat({ scope, onSettled }: { scope: string; onSettled?: () => void }) {
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [running, setRunning] = useState(false);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<TurnError | null>(null);
  /** The turn streamed most recently in this session: its finished answer is announced to screen readers. */
  const [streamedKey, setStreamedKey] = useState<string | null>(null);
  /** Notices (a background task's result) that arrived while the conversation was idle, for its next turn. */
  const [pending, setPending] = useState<PendingNotice[]>([]);

  // Refs for what async code must read fresh (state captured by a closure would be stale).
  const conversationRef = useRef<string | null>(null);
  const runRef = useRef<Run | null>(null);
  const loadRef = useRef<AbortController | null>(null);
  const footersRequested = useRef(new Set<string>());
  const turnsRef = useRef<ChatTurn[]>([]);
  useEffect(() => {
    turnsRef.current = turns;
  }, [turns]);
  const onSettledRef = useRef(onSettled);
  useEffect(() => {
    onSettledRef.current = onSettled;
  }, [onSettled]);

  /** The watch on the open conversation's pending notices (one at a time). */
  const watchRef = useRef<{ controller: AbortController; timer?: ReturnType<typeof setTimeout> } | null>(
    null,
  );

  const stopWatching = useCallback(() => {
    const watch = watchRef.current;
    watchRef.current = null;
    if (!watch) return;
    clearTimeout(watch.timer);
    watch.controller.abort();
  }, []);

  /**
   * Looks at what waits for the conversation's next turn and keeps looking while its background tasks run, so
   * a result shows the moment it is queued (on whichever instance ran the task). A turn takes the notices and
   * says so in its stream, so no look runs during one.
   */
  const watchPending = useCallback(
    (id: string, options: { afterTurn?: boolean } = {}) => {
      stopWatching();
      const watch: { controller: AbortController; timer?: ReturnType<typeof setTimeout> } = {
        controller: new AbortController(),
      };
      watchRef.current = watch;
      const started = Date.now();
      // After a turn, one more look even when the first finds nothing: a task the turn started may have ended
      // and not yet written its notice (the end and the notice are two writes, on whichever instance ran it).
      let sawTasks = options.afterTurn === true;
      const look = async () => {
        if (watchRef.current !== watch || runRef.current) return;
        const found = await agentApi.pending(id, watch.controller.signal).catch(() => null);
        if (watchRef.current !== watch || runRef.current || conversationRef.current !== id) return;
        if (found) setPending(found.notices);
        const next = nextPendingLook({
          tasks: found ? found.tasks : null,
          sawTasks,
          elapsedMs: Date.now() - started,
        });
        sawTasks = (found?.tasks ?? 0) > 0;
        if (next === null) watchRef.current = null;
        else watch.timer = setTimeout(() => void look(), next);
      };
      void look();
    },
    [stopWatching],
  );

  const adopt = useCallback(
    (id: string | null) => {
      conversationRef.current = id;
      setConversationId(id);
      writeStored(STORAGE_KEYS.conversation(scope), id);
    },
    [scope],
  );

  const updateTurn = useCallback((key: string, change: (turn: ChatTurn) => ChatTurn) => {
    setTurns((all) => all.map((turn) => (turn.key === key ? change(turn) : turn)));
  }, []);

  const openConversation = useCallback(
    async (id: string) => {
      if (runRef.current) return;
      loadRef.current?.abort();
      const controller = new AbortController();
      loadRef.current = controller;
      adopt(id);
      stopWatching();
      setPending([]);
      setTurns([]);
      setLoadError(null);
      setLoading(true);
      try {
        const { messages } = await agentApi.conversation(id, controller.signal);
        // The turns are rebuilt without their footers and votes: look their ledger rows up again.
        footersRequested.current.clear();
        setTurns(turnsFromHistory(messages));
        watchPending(id);
      } catch (error) {
        if (controller.signal.aborted) return;
        // Deleted elsewhere, or another user's: start a fresh conversation instead.
        if (error instanceof ApiError && error.status === 404) adopt(null);
        else setLoadError(toTurnError(error));
      } finally {
        if (loadRef.current === controller) {
          loadRef.current = null;
          setLoading(false);
        }
      }
    },
    [adopt, stopWatching, watchPending],
  );

  const newConversation = useCallback(() => {
    if (runRef.current) return;
    loadRef.current?.abort();
    loadRef.current = null;
    stopWatching();
    setPending([]);
    adopt(null);
    setTurns([]);
    setLoadError(null);
    setLoading(false);
  }, [adopt, stopWatching]);

  // Restore the remembered conversation once; leaving (e.g. switching tenant) ends what is in flight.
  useEffect(() => {
    const stored = readStored(STORAGE_KEYS.conversation(scope));
    if (stored) void openConversation(stored);
    return () => {
      runRef.current?.controller.abort();
      loadRef.current?.abort();
      stopWatching();
    };
  }, [scope, openConversation, stopWatching]);

  /**
   * Sends a turn. `retryOf` is the failed turn being retried; `mode` makes the turn replace the conversation's
   * last one (edit: `message` instead of its message; regenerate: its message again). The replaced turn leaves
   * the view at once; if the server refuses before the turn starts, nothing was replaced and it comes back.
   * `inputs`: the context chips and files sent with the message.
   */
  const send = useCallback(
    async (
      message: string,
      model: string | null,
      options: { retryOf?: string; mode?: ReplaceMode; inputs?: MessageInputs } = {},
    ): Promise<void> => {
      const { retryOf, mode } = options;
      const text = message.trim();
      // While a conversation loads, its history would replace the new turn.
      if (!text || runRef.current || loadRef.current) return;
      const replaced = mode ? lastReplaceable(turnsRef.current.filter((t) => t.key !== retryOf)) : undefined;
      if (mode && (!replaced || !conversationRef.current)) return;
      // An edit keeps what the message had (its chips and files) unless told otherwise; a regenerate sends none
      // and the server carries them over from the stored message.
      const inputs =
        mode === "regenerate"
          ? undefined
          : (options.inputs ?? (mode === "edit" ? replaced?.inputs : undefined));
      const turn = { ...newTurn(text, inputs ?? replaced?.inputs), ...(mode ? { mode } : {}) };
      const run: Run = {
        key: turn.key,
        controller: new AbortController(),
        turnId: null,
        stopRequested: false,
      };
      runRef.current = run;
      // The turn takes what was pending and its stream shows it (a `note` before the user's message).
      stopWatching();
      setPending([]);
      setTurns((all) => [
        ...all
          // A retried turn stays in view (the stored history has it too); its footer still says it failed. A
          // refused edit or regenerate was never stored: its retry takes its place.
          .filter((t) => t.key !== replaced?.key && !(mode && t.key === retryOf))
          .map((t) => (t.key === retryOf ? { ...t, error: undefined } : t)),
        turn,
      ]);
      setStreamedKey(turn.key);
      setLoadError(null);
      setRunning(true);
      try {
        const res = await fetch("/api/agent/turns", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            ...(mode === "regenerate" ? { regenerate: true } : { message: text }),
            ...(mode === "edit" ? { replace: "last" } : {}),
            ...(inputs?.context?.length ? { context: chipRefs(inputs.context) } : {}),
            ...(inputs?.attachments?.length ? { attachments: inputs.attachments.map((f) => f.id) } : {}),
            ...(conversationRef.current ? { conversationId: conversationRef.current } : {}),
            ...(model ? { model } : {}),
          }),
          signal: run.controller.signal,
        });
        if (!res.ok || !res.body) {
          const error = res.ok ? new ApiError(res.status, "empty response") : await errorFromResponse(res);
          if (replaced) setTurns((all) => all.flatMap((t) => (t.key === turn.key ? [replaced, t] : [t])));
          updateTurn(turn.key, (t) => endTurn(t, { error: toTurnError(error, retryAfterOf(res)) }));
          return;
        }
        const created = res.headers.get("x-conversation-id");
        if (created && created !== conversationRef.current) adopt(created);
        for await (const batch of readEventBatches(res.body)) {
          for (const event of batch) {
            if (event.type === "turn") {
              run.turnId = event.turnId;
              if (event.conversationId !== conversationRef.current) adopt(event.conversationId);
            }
          }
          updateTurn(turn.key, (t) => batch.reduce(applyEvent, t));
        }
        // A stream always ends with `done`; one that did not was cut on the way.
        updateTurn(turn.key, (t) => endTurn(t, { error: { kind: "cut" } }));
      } catch (error) {
        const stopped = run.controller.signal.aborted;
        updateTurn(turn.key, (t) => endTurn(t, stopped ? { stopped: true } : { error: toTurnError(error) }));
      } finally {
        if (runRef.current === run) runRef.current = null;
        setRunning(false);
        // A task the turn started may report while the conversation is idle.
        if (conversationRef.current) watchPending(conversationRef.current, { afterTurn: true });
        onSettledRef.current?.();
      }
    },
    [adopt, updateTurn, stopWatching, watchPending],
  );

  /**
   * Stop asks the server first, so the turn ends properly (`done` with status stopped). When the server
   * cannot (409: not running on any instance) or cannot be reached, or a second press, the request is
   * aborted instead, which the server also treats as Stop. Partial text stays either way.
   */
  const stop = useCallback(async () => {
    const run = runRef.current;
    if (!run) return;
    if (run.stopRequested || !run.turnId) {
      run.controller.abort();
      return;
    }
    run.stopRequested = true;
    const stopped = await agentApi.stop(run.turnId).catch(() => false);
    if (!stopped) {
      run.controller.abort();
      return;
    }
    setTimeout(() => {
      if (runRef.current === run) run.controller.abort();
    }, STOP_GRACE_MS);
  }, []);

  // Answers loaded from history (or stopped by abort) have no summary: the ledger row has it.
  useEffect(() => {
    const missing = turns
      .slice(-FOOTERS_IN_VIEW)
      .filter((t) => t.turnId && t.phase === "done" && !t.footer && !footersRequested.current.has(t.turnId));
    for (const turn of missing) {
      const turnId = turn.turnId!;
      footersRequested.current.add(turnId);
      void (async () => {
        // A turn just stopped by abort may still be closing on the server: look again a few times.
        for (let attempt = 1; attempt <= 4; attempt++) {
          const found = await agentApi.turn(turnId).catch(() => null);
          if (!found) return;
          const row = found.turn;
          if (row.status !== "running" || attempt === 4) {
            setTurns((all) =>
              all.map((t) =>
                t.turnId === turnId && !t.footer
                  ? { ...withLedger(t, row), feedback: t.feedback ?? found.feedback }
                  : t,
              ),
            );
            return;
          }
          await sleep(attempt * 750);
        }
      })();
    }
  }, [turns]);

  /** The user's vote on an answer, as the server stored it (null: taken back). */
  const setFeedback = useCallback((turnId: string, feedback: TurnFeedback | null) => {
    setTurns((all) => all.map((t) => (t.turnId === turnId ? { ...t, feedback } : t)));
  }, []);

  return {
    conversationId,
    turns,
    running,
    loading,
    loadError,
    streamedKey,
    pending,
    send,
    stop,
    openConversation,
    newConversation,
    setFeedback,
  };
}

// The calls of the run: N chat completions, C at a time, call i to process i mod P (round robin), each a plain
// fetch whose answer is kept whole: status, error code, usage, the rate-limit headers, and when it was sent and
// answered (epoch ms, the clock the servers stamp the ledger with). At given call numbers a hook runs (the kill,
// the pause), in the order the calls are sent.
import { callBody } from "./plan";

export type CallRecord = {
  i: number;
  /** The process it was sent to (an index into the targets). */
  target: number;
  sentAt: number;
  receivedAt: number;
  /** When the fake upstream received it (the server had admitted it just before); null: it never got there. */
  admittedAt: number | null;
  /** 0: no HTTP answer (connection refused or cut, or the client's timeout). */
  status: number;
  /** The error body's `code` (OpenAI's shape), or its `type` when it has no code. */
  code: string | null;
  message: string | null;
  /** x-request-id: the call's ledger row. */
  requestId: string | null;
  usage: { input: number; output: number } | null;
  /** x-ratelimit-limit-requests and x-ratelimit-reset-requests: the rate limit counted this call. */
  rateLimit: { limit: number; reset: string } | null;
  retryAfter: number | null;
  /** Why no answer came, as the client saw it. */
  clientError: string | null;
};

export type Target = { name: string; url: string };

const CLIENT_TIMEOUT_MS = 60_000;

/** One call, its answer read whole. */
export async function call(i: number, target: number, url: string, secret: string): Promise<CallRecord> {
  const record: CallRecord = {
    i,
    target,
    sentAt: Date.now(),
    receivedAt: 0,
    admittedAt: null,
    status: 0,
    code: null,
    message: null,
    requestId: null,
    usage: null,
    rateLimit: null,
    retryAfter: null,
    clientError: null,
  };
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(callBody(i)),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    record.receivedAt = Date.now();
    record.status = res.status;
    record.requestId = res.headers.get("x-request-id");
    const limit = res.headers.get("x-ratelimit-limit-requests");
    const reset = res.headers.get("x-ratelimit-reset-requests");
    if (limit && reset) record.rateLimit = { limit: Number(limit), reset };
    const retry = res.headers.get("retry-after");
    if (retry) record.retryAfter = Number(retry);
    const body = parse(text);
    if (res.status === 200) {
      const usage = body?.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
      if (typeof usage?.prompt_tokens === "number" && typeof usage.completion_tokens === "number")
        record.usage = { input: usage.prompt_tokens, output: usage.completion_tokens };
    } else {
      const error = body?.error as { code?: unknown; type?: unknown; message?: unknown } | undefined;
      record.code =
        typeof error?.code === "string" ? error.code : typeof error?.type === "string" ? error.type : null;
      record.message = typeof error?.message === "string" ? error.message.slice(0, 300) : text.slice(0, 300);
    }
  } catch (error) {
    record.receivedAt = Date.now();
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    record.clientError = cause ?? (error instanceof Error ? error.name : String(error));
  }
  return record;
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Sends `calls` calls, `concurrency` at a time, round robin over `targets`; `hooks[n]` runs as call n is sent. */
export async function sendAll(
  targets: Target[],
  secret: string,
  plan: { calls: number; concurrency: number },
  hooks: Record<number, () => void>,
): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.concurrency }, async () => {
      while (next < plan.calls) {
        const i = next++;
        hooks[i]?.();
        const target = i % targets.length;
        records.push(await call(i, target, targets[target]!.url, secret));
      }
    }),
  );
  return records.sort((a, b) => a.i - b.i);
}

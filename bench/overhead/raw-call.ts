// One chat completion posted with raw node:http on a keep-alive agent (no SDK in between), its answer read whole:
// for a stream, the time its first body byte arrived and every SSE data frame; what the call came to as one word.
import { Agent, request } from "node:http";

/** Where a path's chat completions are posted, and the headers it needs (its key, Portkey's routing). */
export type RawTarget = { endpoint: URL; headers: Record<string, string> };

export type RawAnswer = {
  /** 0 when no HTTP answer came (the connection failed or was cut before the status line). */
  status: number;
  /** The server's x-request-id (Tollgate's: the call's ledger row id). */
  requestId: string | null;
  body: string;
  /** process.hrtime.bigint() when the first body byte arrived. */
  firstByteAt: bigint | null;
  /** Whether the body ended normally (false: the connection was cut while it came). */
  complete: boolean;
};

/** What a call came to, as the load run counts them. */
export type Outcome = "ok" | `HTTP ${number}` | "stream error event" | "cut short" | "no answer";

const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

export function postChat(target: RawTarget, body: Record<string, unknown>): Promise<RawAnswer> {
  const text = JSON.stringify(body);
  return new Promise((resolve) => {
    const answer: RawAnswer = { status: 0, requestId: null, body: "", firstByteAt: null, complete: false };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = request(
      target.endpoint,
      {
        method: "POST",
        agent,
        headers: {
          ...target.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        },
      },
      (res) => {
        answer.status = res.statusCode ?? 0;
        const id = res.headers["x-request-id"];
        answer.requestId = typeof id === "string" ? id : null;
        res.setEncoding("utf8");
        res.on("data", (part: string) => {
          answer.firstByteAt ??= process.hrtime.bigint();
          answer.body += part;
        });
        res.on("end", () => {
          answer.complete = !res.errored;
          settle();
        });
        res.on("error", settle);
        res.on("close", settle);
      },
    );
    req.on("error", settle);
    req.end(text);
  });
}

/** The data payloads of an SSE body, in order. */
export const dataFrames = (body: string): string[] =>
  body
    .split(/\r?\n\r?\n/)
    .flatMap((frame) => frame.split(/\r?\n/).filter((l) => l.startsWith("data:")))
    .map((l) => l.slice(5).trim());

/** The upstream's send time a chunk carries in its id (`chatcmpl-<hrtime ns>`, bench/fake-upstream.ts). */
export function sentAt(frame: string | undefined): bigint | null {
  const id = frame?.match(/"id"\s*:\s*"chatcmpl-(\d+)"/)?.[1];
  return id ? BigInt(id) : null;
}

/** The text of a stream's content deltas, or of a JSON answer's message. */
export function answerText(body: string, stream: boolean): string {
  try {
    if (!stream)
      return (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message
        .content;
    let text = "";
    for (const frame of dataFrames(body)) {
      if (frame === "[DONE]") continue;
      const chunk = JSON.parse(frame) as { choices?: { delta?: { content?: string | null } }[] };
      text += chunk.choices?.[0]?.delta?.content ?? "";
    }
    return text;
  } catch {
    return "";
  }
}

/**
 * "ok" only for a whole answer saying "ok" (a stream: ending in [DONE]); else what the caller got instead. An
 * answer that says something else counts as cut short too (the run's answers are always "ok").
 */
export function outcomeOf(answer: RawAnswer, stream: boolean): Outcome {
  if (answer.status === 0) return "no answer";
  if (answer.status !== 200) return `HTTP ${answer.status}`;
  if (!stream) return answer.complete && answerText(answer.body, false) === "ok" ? "ok" : "cut short";
  const frames = dataFrames(answer.body);
  if (frames.some((f) => f.startsWith('{"error"'))) return "stream error event";
  if (!answer.complete || frames.at(-1) !== "[DONE]") return "cut short";
  return answerText(answer.body, true) === "ok" ? "ok" : "cut short";
}

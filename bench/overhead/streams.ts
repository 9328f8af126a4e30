// Streams: how long each path takes to relay the upstream's first chunk. The fake upstream stamps each chunk's id
// with its send time on the monotonic clock all processes share (`chatcmpl-<ns>`), and holds the rest of the
// stream back for a pause; the client notes when the first body byte arrives. Relay time = arrival − send.
import type { Calls } from "./calls";
import { type PerPath, rotated, STREAM_PATHS, type StreamPath, type Target } from "./plan";
import { dataFrames, outcomeOf, postChat, sentAt } from "./raw-call";

/**
 * Per path: the relay time of each streamed call's first chunk, how many of them arrived before the upstream
 * sent its last chunk, and, when the path cannot stream at all, what it answered instead (then it is not measured).
 */
export type StreamTimes = { relayMs: number[]; beforeLast: number; calls: number; fails?: string };
type StreamedOnce = { relayMs: number; beforeLast: boolean } | { error: string };

/** One streamed call ("Say ok.", with usage) on a path, posted with raw node:http. */
export async function streamOnce(target: Target): Promise<StreamedOnce> {
  const answer = await postChat(target.raw, {
    model: target.model,
    messages: [{ role: "user", content: "Say ok." }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const frames = dataFrames(answer.body).filter((f) => f !== "[DONE]");
  const first = sentAt(frames[0]);
  const last = sentAt(frames.at(-1));
  const outcome = outcomeOf(answer, true);
  if (outcome !== "ok" || first === null || answer.firstByteAt === null)
    return { error: `${outcome}: ${answer.body.slice(0, 200)}` };
  return {
    relayMs: Number(answer.firstByteAt - first) / 1e6,
    beforeLast: last !== null && answer.firstByteAt < last,
  };
}

/** A first stream on every path: the ones that fail it are left out of the rounds, and say why. */
export async function streamSmokeTest(
  calls: Calls,
  targets: PerPath<Target>,
): Promise<Record<StreamPath, StreamTimes>> {
  const times = {} as Record<StreamPath, StreamTimes>;
  for (const p of STREAM_PATHS) {
    const once = await streamOnce(targets[p]);
    times[p] = { relayMs: [], beforeLast: 0, calls: 0 };
    if ("error" in once) times[p].fails = once.error;
    else calls.ok[p]++;
  }
  return times;
}

/** `rounds` rounds of `count` streamed calls per path that streams, one after another, the first path rotating. */
export async function streamRounds(
  calls: Calls,
  targets: PerPath<Target>,
  times: Record<StreamPath, StreamTimes>,
  rounds: number,
  count: number,
  record = true,
): Promise<void> {
  const paths = STREAM_PATHS.filter((p) => !times[p].fails);
  for (let round = 0; round < rounds; round++)
    for (const p of rotated(paths, round))
      for (let i = 0; i < count; i++) {
        const once = await streamOnce(targets[p]);
        if ("error" in once) {
          calls.fail(p, new Error(`stream: ${once.error}`));
          continue;
        }
        calls.ok[p]++;
        if (!record) continue;
        times[p].calls++;
        times[p].relayMs.push(once.relayMs);
        if (once.beforeLast) times[p].beforeLast++;
      }
}

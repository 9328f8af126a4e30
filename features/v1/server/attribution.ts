import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";
import type { ApiAttribution } from "@/lib/turns/observer";
import { RUN_ID_HEADER, RUN_ID_RULE, validRunId } from "@/lib/turns/run-id";

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);

/**
 * Who the calling app says asked, for spend attribution: the `x-tollgate-end-user` header, else OpenAI's `user`
 * (chat, Responses, embeddings) or Anthropic's `metadata.user_id`; `x-tollgate-tags` (comma-separated); OpenAI's
 * `metadata` map. The request itself is not changed by any of it. Sizes are bounded where it is stored.
 */
export function attributionOf(
  format: WireFormat,
  body: Json,
  header: (name: string) => string | undefined,
): ApiAttribution {
  const metadata = body.metadata && typeof body.metadata === "object" ? (body.metadata as Json) : null;
  const fromBody = format === "anthropic-messages" ? text(metadata?.user_id) : text(body.user);
  const tags = (header("x-tollgate-tags") ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const strings =
    format !== "anthropic-messages" && metadata
      ? Object.fromEntries(
          Object.entries(metadata).filter(([, v]) => typeof v === "string") as [string, string][],
        )
      : null;
  return {
    endUser: text(header("x-tollgate-end-user")) ?? fromBody,
    tags: [...new Set(tags)],
    metadata: strings && Object.keys(strings).length ? strings : null,
  };
}

/**
 * The run a call belongs to: the `x-tollgate-run-id` header, else `metadata.run_id` where the format's metadata is a
 * map of strings (OpenAI's; Anthropic's holds only `user_id`). A value that is not a run id is refused, naming
 * where it came from, rather than dropped: a call silently left out of its run would make the run's totals lie.
 */
export function runIdOf(
  format: WireFormat,
  body: Json,
  header: (name: string) => string | undefined,
): { runId: string | undefined } | { refused: { param: string; message: string } } {
  const sent = header(RUN_ID_HEADER);
  if (sent !== undefined) {
    const runId = validRunId(sent);
    return runId ? { runId } : { refused: { param: RUN_ID_HEADER, message: RUN_ID_RULE } };
  }
  const metadata = body.metadata && typeof body.metadata === "object" ? (body.metadata as Json) : null;
  if (format === "anthropic-messages" || !metadata || metadata.run_id === undefined)
    return { runId: undefined };
  const runId = validRunId(metadata.run_id);
  return runId ? { runId } : { refused: { param: "metadata.run_id", message: RUN_ID_RULE } };
}

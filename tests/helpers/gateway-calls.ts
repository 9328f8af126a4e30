// What the gateway's own tests send and how they read a stream: one request shape, one tool, one collector.
import type { ChatRequest, StreamEvent, ToolSchema } from "@/lib/gateway/types";

/** A short chat request to `model` (a system and a user message), with `extra` fields. */
export const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Hello?" },
  ],
  ...extra,
});

/** Every event of a stream, the text it streamed, and its last event (`done` or `error`). */
export async function collect(events: AsyncIterable<StreamEvent>) {
  const all: StreamEvent[] = [];
  for await (const e of events) all.push(e);
  return {
    all,
    text: all.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join(""),
    last: all[all.length - 1]!,
  };
}

export const weather: ToolSchema = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

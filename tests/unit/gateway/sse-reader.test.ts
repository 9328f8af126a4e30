// The SSE reader every provider stream goes through: frames split anywhere (a frame end across two pieces), a
// large frame arriving in small pieces scanned once rather than once a piece, and a frame past the bound refused.
import { describe, expect, it } from "vitest";
import { GatewayError } from "@/lib/gateway/errors";
import { SseReader } from "@/lib/gateway/forward/sse";

describe("SseReader", () => {
  it("finds a frame end split across pieces, for every line ending the spec allows", () => {
    for (const end of ["\n\n", "\r\n\r\n", "\r\r"]) {
      const reader = new SseReader();
      const text = `data: {"a":1}${end}data: {"b":2}${end}`;
      const events = [...text].flatMap((c) => reader.push(c));
      expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"b":2}']);
    }
  });

  it("reads a 4 MiB frame arriving in 1 KiB pieces without rescanning it each time", () => {
    const reader = new SseReader();
    const payload = "x".repeat(4 * 2 ** 20);
    const text = `data: ${payload}\n\n`;
    const started = process.cpuUsage();
    let events: ReturnType<SseReader["push"]> = [];
    for (let i = 0; i < text.length; i += 1024) events = events.concat(reader.push(text.slice(i, i + 1024)));
    const cpuMs = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1000;
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(payload.length);
    // Rescanning 4 MiB for each of 4,096 pieces would be ~17 G character steps; once is a few milliseconds.
    expect(cpuMs).toBeLessThan(5_000);
  });

  it("refuses a frame that grows past 16 MiB instead of buffering it", () => {
    const reader = new SseReader();
    const piece = "x".repeat(2 ** 20);
    let error: unknown;
    try {
      for (let i = 0; i < 20; i++) reader.push(i === 0 ? `data: ${piece}` : piece);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toMatch(/larger than 16 MiB/);
  });
});

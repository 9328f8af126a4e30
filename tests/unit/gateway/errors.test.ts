import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAdapter } from "@/lib/gateway/adapters/anthropic";
import { OpenAIAdapter } from "@/lib/gateway/adapters/openai";
import { classify, networkCode } from "@/lib/gateway/errors";

/** A 127.0.0.1 port that nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Accepts the connection, then destroys the socket before answering. */
let cutter: Server;
let cutterUrl: string;
let deadUrl: string;
beforeAll(async () => {
  cutter = createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => cutter.listen(0, "127.0.0.1", resolve));
  cutterUrl = `http://127.0.0.1:${(cutter.address() as AddressInfo).port}`;
  deadUrl = `http://127.0.0.1:${await deadPort()}`;
});
afterAll(() => new Promise((resolve) => cutter.close(resolve)));

const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
const idle = () => new AbortController().signal;

async function thrownBy(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

/** What a minifier does to a class: same prototype chain, a short name. */
function minified<T extends abstract new (...args: never[]) => unknown>(cls: T, run: () => Promise<void>) {
  const original = Object.getOwnPropertyDescriptor(cls, "name")!;
  Object.defineProperty(cls, "name", { value: "e", configurable: true });
  return run().finally(() => Object.defineProperty(cls, "name", original));
}

describe("classifying provider failures by instanceof and error codes, never by class names", () => {
  for (const [sdk, adapter, errorClass] of [
    ["openai", (url: string) => new OpenAIAdapter({ baseUrl: url, apiKey: "k" }), OpenAI.APIConnectionError],
    [
      "anthropic",
      (url: string) => new AnthropicAdapter({ baseUrl: url, apiKey: "k" }),
      Anthropic.APIConnectionError,
    ],
  ] as const) {
    it(`${sdk}: a refused connection is a connection error, even with the SDK's class names minified`, async () => {
      const error = await thrownBy(() => adapter(deadUrl).chat(request, idle()));
      expect(error).toBeInstanceOf(errorClass);
      expect(networkCode(error)).toBe("ECONNREFUSED");
      await minified(errorClass, async () => {
        expect(classify(error, idle()).errorClass).toBe("connection");
      });
      // The concrete class thrown (a subclass for timeouts) is minified too.
      await minified((error as Error).constructor as never, async () => {
        expect(classify(error, idle())).toMatchObject({ errorClass: "connection" });
      });
    });

    it(`${sdk}: a connection cut before the answer is a connection error, streamed or not`, async () => {
      const json = await thrownBy(() => adapter(cutterUrl).chat(request, idle()));
      const stream = await thrownBy(async () => {
        for await (const _ of adapter(cutterUrl).stream(request, idle())) {
        }
      });
      await minified((json as Error).constructor as never, async () => {
        expect(classify(json, idle()).errorClass).toBe("connection");
        expect(classify(stream, idle()).errorClass).toBe("connection");
      });
    });
  }

  it("the SDKs' own connection-timeout classes are timeouts, under any name", async () => {
    class t extends OpenAI.APIConnectionTimeoutError {}
    class u extends Anthropic.APIConnectionTimeoutError {}
    expect(classify(new t(), idle()).errorClass).toBe("timeout");
    expect(classify(new u(), idle()).errorClass).toBe("timeout");
  });

  it("finds socket codes down the cause chain (fetch and undici wrap them)", () => {
    const socket = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const wrapped = new TypeError("fetch failed", {
      cause: new Error("other side closed", { cause: socket }),
    });
    expect(classify(wrapped, idle())).toMatchObject({ errorClass: "connection" });
    const undici = new TypeError("fetch failed", {
      cause: Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" }),
    });
    expect(classify(undici, idle()).errorClass).toBe("timeout");
  });

  it("a class merely named like a connection error, with no code, is not one", () => {
    class APIConnectionError extends Error {}
    class FetchSocketNetworkTimeout extends Error {}
    expect(classify(new APIConnectionError("boom"), idle()).errorClass).toBe("internal");
    expect(classify(new FetchSocketNetworkTimeout("boom"), idle()).errorClass).toBe("internal");
  });

  it("an HTTP status still wins: 503 is a server error, 400 a bad request", () => {
    const headers = new Headers();
    expect(classify(OpenAI.APIError.generate(503, {}, "down", headers), idle()).errorClass).toBe("server");
    expect(classify(Anthropic.APIError.generate(400, {}, "bad", headers), idle()).errorClass).toBe(
      "bad_request",
    );
  });
});

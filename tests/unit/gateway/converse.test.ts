// OpenAI chat <-> Bedrock Converse (docs/translation.md's Bedrock table), the Bedrock provider's config, and
// its credentials from AWS's standard chain (a shared credentials file's profile).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayConfigError, parseGatewayConfig } from "@/lib/gateway/config";
import { BedrockProvider } from "@/lib/gateway/native/bedrock";
import {
  ConverseStreamToOpenAIChat,
  converseToOpenAIChat,
  openAIChatToConverse,
} from "@/lib/gateway/translate/converse";
import { Untranslatable } from "@/lib/gateway/translate/types";

const opts = { model: "amazon.nova-pro-v1:0", dropUnsupported: false };
const user = (content: unknown) => ({ model: "m", messages: [{ role: "user", content }] });

describe("OpenAI chat to Converse", () => {
  it("carries images as bytes, documents by name, and merges consecutive same-role messages", () => {
    const { body } = openAIChatToConverse(
      {
        model: "m",
        messages: [
          { role: "user", content: "one" },
          {
            role: "user",
            content: [
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR", detail: "auto" } },
              {
                type: "file",
                file: { file_data: "data:application/pdf;base64,JVBER", filename: "q3 report.pdf" },
              },
            ],
          },
        ],
      },
      opts,
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { text: "one" },
          { image: { format: "png", source: { bytes: "iVBOR" } } },
          { document: { format: "pdf", name: "q3 report", source: { bytes: "JVBER" } } },
        ],
      },
    ]);
  });

  it("refuses by name what changes the answer, and drops hints unless the alias is strict", () => {
    expect(() => openAIChatToConverse({ ...user("hi"), n: 2 }, opts)).toThrow(Untranslatable);
    expect(() => openAIChatToConverse({ ...user("hi"), logprobs: true }, opts)).toThrow(/logprobs/);
    expect(() =>
      openAIChatToConverse({ ...user("hi"), response_format: { type: "json_object" } }, opts),
    ).toThrow(/response_format: Converse has no structured-output mode/);
    expect(() => openAIChatToConverse({ ...user("hi"), surprise: 1 }, opts)).toThrow(/surprise/);
    expect(() =>
      openAIChatToConverse(user([{ type: "image_url", image_url: { url: "https://x.test/a.png" } }]), opts),
    ).toThrow(/image_url\.url/);
    const hinted = openAIChatToConverse(
      {
        model: "m",
        messages: [{ role: "user", name: "ann", content: "hi" }],
        parallel_tool_calls: false,
        safety_identifier: "s-1",
      },
      opts,
    );
    expect(hinted.dropped).toEqual(["safety_identifier", "parallel_tool_calls", "messages.0.name"]);
    expect(hinted.body).toEqual({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    expect(() =>
      openAIChatToConverse(
        { model: "m", messages: [{ role: "user", name: "ann", content: "hi" }] },
        { ...opts, strict: true },
      ),
    ).toThrow(/the alias is strict/);
    const dropped = openAIChatToConverse({ ...user("hi"), seed: 3 }, { ...opts, dropUnsupported: true });
    expect(dropped.dropped).toEqual(["seed"]);
  });

  it("maps tool choice, refuses none in a conversation that used tools, and needs the tools declared", () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    const named = openAIChatToConverse(
      { ...user("hi"), tools, tool_choice: { type: "function", function: { name: "f" } } },
      opts,
    );
    expect(named.body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: "f", inputSchema: { json: { type: "object" } } } }],
      toolChoice: { tool: { name: "f" } },
    });
    expect(
      openAIChatToConverse({ ...user("hi"), tools, tool_choice: "none" }, opts).body.toolConfig,
    ).toBeUndefined();
    const history = {
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "done" },
      ],
    };
    expect(() => openAIChatToConverse({ ...history, tools, tool_choice: "none" }, opts)).toThrow(
      /tool_choice/,
    );
    expect(() => openAIChatToConverse(history, opts)).toThrow(/tools: Converse needs the tools declared/);
    expect(() =>
      openAIChatToConverse(
        {
          model: "m",
          messages: [
            { role: "user", content: "hi" },
            {
              role: "assistant",
              tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "[1]" } }],
            },
          ],
          tools,
        },
        opts,
      ),
    ).toThrow(/arguments: Converse takes a JSON object/);
  });

  it("turns reasoning effort into Claude's thinking budget and the service tier into Converse's", () => {
    const { body } = openAIChatToConverse(
      { ...user("hi"), reasoning_effort: "medium", service_tier: "flex" },
      opts,
    );
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 8192 } });
    expect(body.serviceTier).toEqual({ type: "flex" });
  });
});

describe("Converse answers as OpenAI chat", () => {
  it("reads text, tool uses, stop reasons and usage with cache reads and writes", () => {
    const answer = converseToOpenAIChat(
      {
        output: {
          message: {
            role: "assistant",
            content: [{ text: "Let me look." }, { toolUse: { toolUseId: "t1", name: "f", input: { a: 1 } } }],
          },
        },
        stopReason: "tool_use",
        usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 100, cacheWriteInputTokens: 20 },
      },
      "m",
    );
    expect(answer.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Let me look.",
          refusal: null,
          tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
        },
        finish_reason: "tool_calls",
        logprobs: null,
      },
    ]);
    expect(answer.usage).toEqual({
      prompt_tokens: 130,
      completion_tokens: 5,
      total_tokens: 135,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    });
  });

  it("streams: role first, text, tool-call deltas by index, finish at messageStop, usage at metadata", () => {
    const t = new ConverseStreamToOpenAIChat("m");
    const out = [
      ...t.push("messageStart", { role: "assistant" }),
      ...t.push("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }),
      ...t.push("contentBlockStart", {
        contentBlockIndex: 1,
        start: { toolUse: { toolUseId: "t1", name: "f" } },
      }),
      ...t.push("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: '{"a":' } } }),
      ...t.push("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: "1}" } } }),
      ...t.push("messageStop", { stopReason: "max_tokens" }),
      ...t.push("metadata", { usage: { inputTokens: 3, outputTokens: 4 } }),
    ];
    const deltas = out.map((c) => (c.choices as Array<{ delta: unknown; finish_reason: unknown }>)[0]);
    expect(deltas[0]).toMatchObject({ delta: { role: "assistant", content: "" } });
    expect(deltas[1]).toMatchObject({ delta: { content: "Hi" } });
    expect(deltas[2]).toMatchObject({
      delta: { tool_calls: [{ index: 0, id: "t1", function: { name: "f" } }] },
    });
    expect(deltas[4]).toMatchObject({ delta: { tool_calls: [{ index: 0, function: { arguments: "1}" } }] } });
    expect(deltas[5]).toMatchObject({ finish_reason: "length" });
    expect(out[6]).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } });
    expect(t.stopped).toBe(true);
  });
});

describe("the bedrock provider's config and credentials", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("takes the region from the config or AWS_REGION, and refuses Bedrock's fields on other types", () => {
    const config = (provider: object, env = {}) =>
      parseGatewayConfig(
        { providers: { b: provider }, models: { a: { candidates: [{ provider: "b", model: "x" }] } } },
        "f",
        env,
      );
    expect(config({ type: "bedrock" }, { AWS_REGION: "eu-central-1" }).providers.b!.region).toBe(
      "eu-central-1",
    );
    expect(() => config({ type: "bedrock" })).toThrow(/region is required for type bedrock/);
    expect(() => config({ type: "openai", region: "us-east-1" })).toThrow(GatewayConfigError);
    expect(() =>
      config(
        { type: "bedrock", region: "us-east-1", aws: { accessKeyIdEnv: "K", secretAccessKeyEnv: "S" } },
        { K: "k" },
      ),
    ).toThrow(/aws\.secretAccessKeyEnv names S, which is not set/);
  });

  it("signs with a profile from the shared credentials file (AWS's standard chain)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "aws-"));
    writeFileSync(
      path.join(dir, "credentials"),
      "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = x\n\n[tollgate]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = y\n",
    );
    for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"])
      delete process.env[name];
    process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(dir, "credentials");
    process.env.AWS_CONFIG_FILE = path.join(dir, "config-none");
    const bedrock = new BedrockProvider({ type: "bedrock", region: "us-west-2", profile: "tollgate" });
    const target = await bedrock.target("amazon.nova-pro-v1:0", false, "{}");
    expect(target.url).toBe(
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse",
    );
    expect(target.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDPROFILE\/\d{8}\/us-west-2\/bedrock\/aws4_request/,
    );
  });

  it("fails as an auth error, naming Bedrock, when the chain finds no credentials", async () => {
    const bedrock = new BedrockProvider({ type: "bedrock", region: "us-west-2" }, async () => {
      throw new Error("Could not load credentials from any providers");
    });
    await expect(bedrock.target("m", false, "{}")).rejects.toMatchObject({ errorClass: "auth" });
  });
});

describe("ConverseStream's binary event stream", () => {
  const codec = new EventStreamCodec(
    (b) => Buffer.from(b).toString("utf8"),
    (s) => Buffer.from(s, "utf8"),
  );
  const frame = (type: string, payload: unknown) =>
    Buffer.from(
      codec.encode({
        headers: {
          ":message-type": { type: "string", value: "event" },
          ":event-type": { type: "string", value: type },
        },
        body: Buffer.from(JSON.stringify(payload)),
      }),
    );
  const bedrock = new BedrockProvider({ type: "bedrock", region: "us-east-1", apiKey: "k" });
  const read = async (pieces: Buffer[]) => {
    let text = "";
    for await (const chunk of bedrock.stream(Readable.from(pieces), "m")) text += String(chunk);
    return text;
  };

  it("decodes frames that arrive a byte at a time", async () => {
    const bytes = Buffer.concat([
      frame("messageStart", { role: "assistant" }),
      frame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }),
      frame("messageStop", { stopReason: "end_turn" }),
      frame("metadata", { usage: { inputTokens: 1, outputTokens: 1 } }),
    ]);
    const text = await read([...bytes].map((b) => Buffer.from([b])));
    expect(text).toContain('"content":"Hi"');
    expect(text).toContain('"finish_reason":"stop"');
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("ends with an error chunk, not a hang or a buffer, on a frame too large or corrupt", async () => {
    const huge = Buffer.alloc(8);
    huge.writeUInt32BE(2 ** 31, 0);
    expect(await read([huge])).toMatch(
      /"error":\{"type":"server","message":"Bedrock: Bedrock sent an event-stream frame of 2147483648 bytes"/,
    );
    const corrupt = frame("messageStart", { role: "assistant" });
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1);
    expect(await read([corrupt])).toMatch(/event stream was corrupt/);
  });
});

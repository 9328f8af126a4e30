// The fake Bedrock runtime speaks the real wire: AWS's own SDK (@aws-sdk/client-bedrock-runtime) signs its
// requests (accepted by the fake's SigV4 check) and reads its JSON answers and binary event streams; a wrong
// secret is refused as AWS refuses it. The gateway's own signer is then checked against the same fake.
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nodeRequest } from "@/lib/gateway/adapters/node-fetch";
import { BedrockProvider } from "@/lib/gateway/native/bedrock";
import { type FakeBedrock, startFakeBedrock } from "../fakes/bedrock";

const REGION = "eu-west-1";
const KEYS = { AKIDEXAMPLE: { secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" } };
const MODEL = "eu.anthropic.claude-sonnet-4-20250514-v1:0";

describe("the fake Bedrock runtime", () => {
  let fake: FakeBedrock;
  beforeAll(async () => {
    fake = await startFakeBedrock({ region: REGION, keys: KEYS, models: [MODEL] });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const sdk = (secret = KEYS.AKIDEXAMPLE.secret) =>
    new BedrockRuntimeClient({
      region: REGION,
      endpoint: fake.url,
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret },
      maxAttempts: 1,
      // The SDK speaks HTTP/2 to Bedrock by default; the fake (like the gateway) is HTTP/1.1.
      requestHandler: new NodeHttpHandler(),
    });

  it("answers AWS's SDK: Converse, its signature verified", async () => {
    fake.enqueue({
      kind: "tool_calls",
      text: "Checking.",
      calls: [{ id: "tu_1", name: "lookup", args: { q: "x" } }],
    });
    const out = await sdk().send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: "user", content: [{ text: "hi" }] }],
        toolConfig: { tools: [{ toolSpec: { name: "lookup", inputSchema: { json: { type: "object" } } } }] },
      }),
    );
    expect(out.stopReason).toBe("tool_use");
    expect(out.output?.message?.content?.[1]?.toolUse).toEqual({
      toolUseId: "tu_1",
      name: "lookup",
      input: { q: "x" },
    });
    expect(fake.signatures.verified).toBe(1);
    // The SDK escapes the model id's colon in the path; the signature covers the path as sent.
    expect(fake.requests[0]!.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
  });

  it("streams to AWS's SDK: ConverseStream's event stream decodes, usage in the metadata event", async () => {
    fake.enqueue({ kind: "text", text: "one two three", usage: { input: 9, output: 3 } });
    const out = await sdk().send(
      new ConverseStreamCommand({
        modelId: MODEL,
        messages: [{ role: "user", content: [{ text: "count" }] }],
      }),
    );
    let text = "";
    let usage: unknown;
    let stop: string | undefined;
    for await (const event of out.stream!) {
      text += event.contentBlockDelta?.delta?.text ?? "";
      if (event.messageStop) stop = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    expect(text).toBe("one two three");
    expect(stop).toBe("end_turn");
    expect(usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
  });

  it("refuses a request signed with the wrong secret, as AWS does", async () => {
    await expect(
      sdk("not-the-secret").send(
        new ConverseCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
      ),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    expect(fake.signatures.refused).toBe(1);
  });

  it("takes the gateway's own SigV4 signature, and refuses it once the body is changed after signing", async () => {
    const bedrock = new BedrockProvider({ type: "bedrock", region: REGION, baseUrl: fake.url }, async () => ({
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: KEYS.AKIDEXAMPLE.secret,
    }));
    const body = JSON.stringify({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    const target = await bedrock.target(MODEL, false, body);
    const ok = await nodeRequest(target.url, { method: "POST", headers: { ...target.headers }, body });
    expect(ok.status).toBe(200);
    const tampered = await nodeRequest(target.url, {
      method: "POST",
      headers: { ...target.headers },
      body: body.replace("hi", "ho"),
    });
    expect(tampered.status).toBe(403);
    expect(fake.signatures).toEqual({ verified: 1, refused: 1 });
  });
});

import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { Readable } from "node:stream";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { SignatureV4 } from "@smithy/signature-v4";
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  Checksum,
  SourceData,
} from "@smithy/types";
import type { ResolvedProvider } from "../config";
import { GatewayError } from "../errors";
import {
  ConverseStreamToOpenAIChat,
  converseToOpenAIChat,
  openAIChatToConverse,
} from "../translate/converse";
import type { Json, TranslateOptions } from "../translate/types";
import type { NativeProvider, NativeRequest, NativeTarget } from "./types";

/** SHA-256 (or its HMAC, given a secret) on node:crypto, in the shape @smithy/signature-v4 asks for. */
class Sha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash("sha256") : createHmac("sha256", toBytes(this.secret));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(typeof data === "string" ? Buffer.from(data, "utf8") : data);
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const toBytes = (data: SourceData): Uint8Array =>
  typeof data === "string"
    ? Buffer.from(data, "utf8")
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** AWS's event-stream framing: the codec decodes one message; this splits the bytes into messages. */
const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => Buffer.from(text, "utf8"),
);
/** No Bedrock event comes near this; a frame that claims more is refused, not buffered. */
const MAX_FRAME_BYTES = 16 * 2 ** 20;

/**
 * AWS Bedrock through the Converse and ConverseStream APIs: OpenAI chat translated to Converse
 * (translate/converse.ts), the request signed with SigV4 (service `bedrock`) on the gateway's own node:http
 * transport, the binary event stream decoded and turned back into OpenAI chat chunks. A candidate's `model` is
 * a Bedrock model id or an inference profile (`us.anthropic.claude-…`, `global.…`), put in the URL as is.
 * Credentials: a Bedrock API key (bearer), the provider's own key variables, else AWS's standard chain (the
 * environment, the shared config and credentials files with `profile`, web identity, SSO, ECS and EC2 roles).
 */
export class BedrockProvider implements NativeProvider {
  private readonly endpoint: string;
  private readonly signer: SignatureV4 | undefined;
  private readonly bearer: string | undefined;

  constructor(provider: ResolvedProvider, credentials?: AwsCredentialIdentityProvider) {
    const region = provider.region;
    if (!region) throw new Error("a bedrock provider needs its region");
    this.endpoint = (provider.baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(
      /\/+$/,
      "",
    );
    this.bearer = provider.apiKey;
    if (this.bearer) return;
    const source = credentials ?? staticOrChain(provider);
    this.signer = new SignatureV4({
      service: "bedrock",
      region,
      sha256: Sha256,
      credentials: async () => {
        try {
          return await source();
        } catch (error) {
          throw new GatewayError("auth", `no AWS credentials for Bedrock: ${(error as Error).message}`, 401);
        }
      },
    });
  }

  translate(body: Json, options: TranslateOptions & { stream: boolean }): NativeRequest {
    return openAIChatToConverse(body, options);
  }

  async target(model: string, stream: boolean, bodyText: string): Promise<NativeTarget> {
    const url = new URL(
      `${this.endpoint}/model/${encodeURIComponent(model)}/${stream ? "converse-stream" : "converse"}`,
    );
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "application/vnd.amazon.eventstream" : "application/json",
    };
    if (this.bearer)
      return { url: url.href, headers: { ...headers, authorization: `Bearer ${this.bearer}` } };
    const signed = await this.signer!.sign({
      method: "POST",
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      // The path as sent (the model id's `:` escaped once); SigV4 escapes it once more, as AWS checks it.
      path: url.pathname,
      query: {},
      headers: { ...headers, host: url.host },
      body: bodyText,
    });
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) if (name !== "host") out[name] = value;
    return { url: url.href, headers: out };
  }

  answer(body: Json, model: string): Json {
    return converseToOpenAIChat(body, model);
  }

  stream(body: Readable, model: string): Readable {
    return Readable.from(converseEvents(body, model), { objectMode: false });
  }
}

function staticOrChain(provider: ResolvedProvider): AwsCredentialIdentityProvider {
  const keys = provider.awsCredentials;
  if (keys) {
    const identity: AwsCredentialIdentity = { ...keys };
    return async () => identity;
  }
  return defaultProvider(provider.profile ? { profile: provider.profile } : {});
}

/** The SSE text of OpenAI chat chunks for ConverseStream's binary events. */
async function* converseEvents(body: Readable, model: string): AsyncGenerator<string> {
  const chunks = new ConverseStreamToOpenAIChat(model);
  let buffer: Buffer = Buffer.alloc(0);
  // Pieces of a frame still arriving: joined once it is whole, not once a piece (a large frame in small pieces
  // would otherwise be copied over and over).
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let wanted = 0;
  try {
    for await (const piece of body as AsyncIterable<Buffer>) {
      pending.push(piece);
      pendingBytes += piece.length;
      if (pendingBytes < wanted) continue;
      buffer = Buffer.concat([buffer, ...pending]);
      pending.length = 0;
      pendingBytes = 0;
      wanted = 0;
      let text = "";
      while (buffer.length >= 4) {
        const length = buffer.readUInt32BE(0);
        if (length < 16 || length > MAX_FRAME_BYTES) {
          yield errorChunk("server", `Bedrock sent an event-stream frame of ${length} bytes`);
          return;
        }
        if (buffer.length < length) {
          wanted = length - buffer.length;
          break;
        }
        const frame = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        let message: ReturnType<typeof codec.decode>;
        try {
          message = codec.decode(frame);
        } catch (error) {
          yield errorChunk("server", `Bedrock's event stream was corrupt: ${(error as Error).message}`);
          return;
        }
        const header = (name: string) => {
          const h = message.headers[name];
          return h && h.type === "string" ? h.value : undefined;
        };
        let payload: Json = {};
        try {
          const parsed = JSON.parse(Buffer.from(message.body).toString("utf8")) as unknown;
          if (parsed && typeof parsed === "object") payload = parsed as Json;
        } catch {
          // An event without a JSON body carries nothing to relay.
        }
        const kind = header(":message-type");
        if (kind === "exception" || kind === "error") {
          const type = header(":exception-type") ?? header(":error-code") ?? "internalServerException";
          const detail = String(payload.message ?? payload.Message ?? header(":error-message") ?? type);
          yield text + errorChunk(exceptionType(type), detail);
          return;
        }
        for (const chunk of chunks.push(header(":event-type") ?? "", payload))
          text += `data: ${JSON.stringify(chunk)}\n\n`;
      }
      if (text) yield text;
    }
    if (chunks.stopped) yield "data: [DONE]\n\n";
  } finally {
    body.destroy();
  }
}

/** An exception inside ConverseStream, as the error type the gateway's stream reader classifies. */
function exceptionType(type: string): string {
  if (/throttling|serviceQuota/i.test(type)) return "rate_limit_error";
  if (/validation/i.test(type)) return "invalid_request_error";
  if (/accessDenied/i.test(type)) return "permission_error";
  return "api_error";
}

const errorChunk = (type: string, message: string) =>
  `data: ${JSON.stringify({ error: { type, message: `Bedrock: ${message}` } })}\n\n`;

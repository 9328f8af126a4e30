// A fake Google Gemini API and Vertex AI endpoint speaking the real generateContent wire, for the official
// @google/genai SDK and for Tollgate's native provider:
//   Gemini API: POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse (and /v1/…), key in
//               x-goog-api-key
//   Vertex AI:  POST /v1/projects/{project}/locations/{location}/publishers/google/models/{model}:… with a bearer
//               token its own token endpoint issued (POST /token: the JWT-bearer grant, the assertion's RS256
//               signature checked against the service account's public key, and its aud, iss and scope)
// Answers are GenerateContentResponse JSON, or SSE frames `data: {GenerateContentResponse}` with usageMetadata
// and finishReason on the last. Errors are Google's `{error: {code, message, status}}`.
import { createVerify, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type FakeProvider,
  type FakeReply,
  fakeId,
  openSse,
  type RawReply,
  type RecordedRequest,
  type RenderableReply,
  resolveUsage,
  sendJson,
  sleep,
  startFakeServer,
  textPieces,
} from "./http";

export type FakeGeminiOptions = {
  /** Models served (named in paths); answers name them as modelVersion. */
  models: string[];
  /** The Gemini API key taken in x-goog-api-key. */
  apiKey?: string;
  /** Vertex AI: the project, location and service account whose signed assertions the token endpoint takes. */
  vertex?: {
    project: string;
    location: string;
    clientEmail: string;
    publicKey: KeyObject;
    expiresInSeconds?: number;
  };
};

export type FakeGemini = FakeProvider & {
  /** The token endpoint (a service-account key's token_uri). */
  tokenUri: string;
  tokens: { granted: number; refused: number };
};

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** Google's error body. */
export const googleError = (code: number, message: string, reason?: string) => ({
  error: {
    code,
    message,
    status: STATUS[code] ?? "UNKNOWN",
    ...(reason
      ? {
          details: [
            { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" },
          ],
        }
      : {}),
  },
});

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

export async function startFakeGemini(options: FakeGeminiOptions): Promise<FakeGemini> {
  const issued = new Map<string, number>(); // token → expiry (ms)
  const tokens = { granted: 0, refused: 0 };
  let tokenUri = "";
  const routes: Record<
    string,
    (reply: RenderableReply, req: RecordedRequest, res: ServerResponse) => Promise<void>
  > = {};
  const vertexRoot = options.vertex
    ? `/v1/projects/${options.vertex.project}/locations/${options.vertex.location}/publishers/google/models`
    : undefined;
  for (const model of options.models) {
    for (const root of ["/v1beta/models", "/v1/models", vertexRoot]) {
      if (!root) continue;
      routes[`${root}/${model}:generateContent`] = (reply, req, res) => render(reply, req, res, model);
      routes[`${root}/${model}:streamGenerateContent`] = (reply, req, res) => render(reply, req, res, model);
    }
  }

  const authorize = (req: RecordedRequest): Extract<FakeReply, { kind: "error" }> | null => {
    if (req.path.startsWith("/v1beta/") || req.path.startsWith("/v1/models/")) {
      const key = req.headers["x-goog-api-key"];
      if (key === undefined)
        return {
          kind: "error",
          status: 403,
          message:
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        };
      if (key !== options.apiKey)
        // As Google does: 400, the reason in an ErrorInfo detail.
        return {
          kind: "error",
          status: 400,
          message: "API key not valid. Please pass a valid API key.",
          code: "API_KEY_INVALID",
        };
      return null;
    }
    const auth = String(req.headers.authorization ?? "");
    const bearer = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if ((issued.get(bearer) ?? 0) > Date.now()) return null;
    return {
      kind: "error",
      status: 401,
      message:
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    };
  };

  const grant = (req: RecordedRequest, res: ServerResponse) => {
    const form = new URLSearchParams(req.rawBody);
    const refuse = (why: string) => {
      tokens.refused++;
      sendJson(res, 400, { error: "invalid_grant", error_description: why });
    };
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
      return refuse("Invalid grant_type");
    const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
    if (!header || !claims || !signature) return refuse("Invalid JWT");
    const verified = createVerify("RSA-SHA256")
      .update(`${header}.${claims}`)
      .verify(options.vertex!.publicKey, Buffer.from(signature, "base64url"));
    if (!verified) return refuse("Invalid JWT Signature.");
    const c = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as Record<string, unknown>;
    const h = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as Record<string, unknown>;
    const now = Date.now() / 1000;
    if (h.alg !== "RS256") return refuse("Invalid JWT: alg");
    if (c.aud !== tokenUri) return refuse("Invalid JWT: aud");
    if (c.iss !== options.vertex!.clientEmail) return refuse("Invalid JWT: iss");
    if (
      !String(c.scope ?? "")
        .split(" ")
        .includes(SCOPE)
    )
      return refuse("Invalid JWT: scope");
    // Short-lived: an hour at most (the iat is not checked against this clock: tests move the source's own).
    if (typeof c.exp !== "number" || c.exp < now || typeof c.iat !== "number" || c.exp - c.iat > 3600)
      return refuse("Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.");
    tokens.granted++;
    const expiresIn = options.vertex!.expiresInSeconds ?? 3599;
    const token = `ya29.${fakeId("", 40)}`;
    issued.set(token, Date.now() + expiresIn * 1000);
    sendJson(res, 200, { access_token: token, expires_in: expiresIn, token_type: "Bearer" });
  };

  const fake = await startFakeServer({
    render: (reply, req, res) => render(reply, req, res, ""),
    routes,
    authorize,
    validate: undefined,
    services: options.vertex ? { "/token": grant } : {},
  });
  tokenUri = `${fake.url}/token`;
  // Route validation: Google refuses a body without contents before answering.
  return Object.assign(fake, { tokenUri, tokens });
}

/** A GenerateContentResponse whose prompt was blocked (no candidates, promptFeedback says why). */
export function geminiPromptBlocked(): RawReply {
  return {
    kind: "raw",
    json: {
      promptFeedback: {
        blockReason: "SAFETY",
        safetyRatings: [
          { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
          { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
        ],
      },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: "gemini-2.5-flash",
      responseId: fakeId("", 22),
    },
  };
}

async function render(reply: RenderableReply, req: RecordedRequest, res: ServerResponse, model: string) {
  if (reply.kind === "error") {
    const headers = { ...(reply.headers ?? {}) };
    return sendJson(
      res,
      reply.status,
      googleError(reply.status, reply.message ?? "error", reply.code),
      headers,
    );
  }
  const contents = req.body.contents;
  if (!Array.isArray(contents) || !contents.length)
    return sendJson(
      res,
      400,
      googleError(400, "* GenerateContentRequest.contents: contents is not specified"),
    );
  const stream = req.path.includes(":streamGenerateContent");
  if (stream && !req.path.endsWith("?alt=sse"))
    return sendJson(res, 400, googleError(400, "the fake serves streams as alt=sse only"));
  const responseId = fakeId("", 22);
  const modelVersion = reply.kind !== "hang_after_headers" && reply.model ? reply.model : model;
  if (reply.kind === "hang_after_headers") {
    openSse(res);
    return;
  }
  const usage = resolveUsage(reply.kind === "cut" ? undefined : reply.usage, 5);
  const usageMetadata = {
    promptTokenCount: usage.input + usage.cached,
    candidatesTokenCount: usage.output - usage.reasoning,
    totalTokenCount: usage.input + usage.cached + usage.output,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
  };
  const frame = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    ...(last ? { usageMetadata } : {}),
    modelVersion,
    responseId,
  });
  const callParts =
    reply.kind === "tool_calls"
      ? reply.calls.map((c) => ({
          functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.args },
        }))
      : [];
  if (!stream) {
    const text = reply.kind === "tool_calls" ? reply.text : reply.text;
    const parts = [...(text ? [{ text }] : []), ...callParts];
    return sendJson(res, 200, frame(parts, true));
  }
  const sse = openSse(res);
  if (reply.kind === "cut") {
    for (const piece of textPieces(reply).slice(0, reply.afterChunks))
      await sse.send(frame([{ text: piece }], false));
    if (reply.ending === "stall") return;
    return sse.cut();
  }
  if (reply.kind === "text") {
    const pieces = textPieces(reply);
    for (const [i, piece] of pieces.entries()) {
      if (sse.closed) return;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      await sse.send(frame([{ text: piece }], i === pieces.length - 1));
    }
    if (!pieces.length) await sse.send(frame([], true));
  } else {
    if (reply.text) await sse.send(frame([{ text: reply.text }], false));
    await sse.send(frame(callParts, true));
  }
  sse.end();
}

export const SERVICE_ACCOUNT_EMAIL = "tollgate@proj-1.iam.gserviceaccount.com";

/** A service-account key pair and its JSON key file, pointed at the fake's token endpoint. */
export function makeServiceAccount(tokenUri: string, clientEmail = SERVICE_ACCOUNT_EMAIL) {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const file = path.join(mkdtempSync(path.join(tmpdir(), "tollgate-sa-")), "key.json");
  const write = (uri: string) =>
    writeFileSync(
      file,
      JSON.stringify({
        type: "service_account",
        project_id: "proj-1",
        private_key_id: "kid-1",
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
        client_email: clientEmail,
        token_uri: uri,
      }),
    );
  write(tokenUri);
  return { publicKey, file, write };
}

// A fake Azure OpenAI resource for the official SDKs (AzureOpenAI and OpenAI with the v1 base URL), checking what
// the real service checks: the `api-key` header or an Entra ID bearer token (issued by its own token endpoint),
// the `api-version` of the dated paths, and that the deployment exists. Answers are OpenAI's chat completions
// with Azure's content-filter verdicts (`prompt_filter_results`, each choice's `content_filter_results`).
//   dated: POST /openai/deployments/{deployment}/chat/completions?api-version=2024-10-21 (and /embeddings)
//   v1:    POST /openai/v1/chat/completions, /openai/v1/embeddings, /openai/v1/responses (deployment as `model`)
//   Entra: POST /{tenant}/oauth2/v2.0/token (client credentials), its origin given as the authority host
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import {
  type FakeProvider,
  type FakeReply,
  type RecordedRequest,
  type RenderableReply,
  sendJson,
  startFakeServer,
} from "./http";
import { type ChatFlavour, renderChatCompletion } from "./openai";
import { renderEmbeddings } from "./openai-embeddings";
import { renderResponses } from "./openai-responses";

export type FakeAzureOptions = {
  /** Deployment name → the model it serves (named in answers, e.g. "gpt-4o-2024-11-20"). */
  deployments: Record<string, string>;
  /** The resource's key, taken as `api-key` (and, on the v1 API, as a bearer). */
  apiKey?: string;
  /** An Entra ID application allowed to call the resource with a token. */
  entra?: { tenantId: string; clientId: string; clientSecret: string; expiresInSeconds?: number };
  /** Dated API versions the resource takes (default: a GA and a preview). */
  apiVersions?: string[];
};

export type FakeAzureOpenAI = FakeProvider & {
  /** The resource's endpoint (the provider's `baseUrl`), and the Entra authority host. */
  endpoint: string;
  /** Token requests granted and refused so far. */
  tokens: { granted: number; refused: number };
};

const SAFE = { filtered: false, severity: "safe" };
/** The verdicts Azure attaches when nothing was filtered. */
export const AZURE_SAFE_VERDICTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };

const AZURE_FLAVOUR = (deployments: Record<string, string>): ChatFlavour => ({
  defaultModel: (req) => deployments[deploymentOf(req) ?? ""] ?? "gpt-4o-2024-11-20",
  answerExtras: () => ({
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: AZURE_SAFE_VERDICTS }],
  }),
  choiceExtras: () => ({ content_filter_results: AZURE_SAFE_VERDICTS }),
  leadChunk: () => ({
    choices: [],
    created: 0,
    id: "",
    model: "",
    object: "",
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: AZURE_SAFE_VERDICTS }],
  }),
});

const DEPLOYMENT_NOT_FOUND = {
  kind: "error",
  status: 404,
  code: "DeploymentNotFound",
  message:
    "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.",
} as const;

const DATED = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;

/** The deployment a request names: in the dated path, else as the body's `model` (v1). */
function deploymentOf(req: RecordedRequest): string | undefined {
  const path = req.path.split("?")[0]!;
  const dated = DATED.exec(path);
  if (dated) return decodeURIComponent(dated[1]!);
  return typeof req.body.model === "string" ? req.body.model : undefined;
}

export async function startFakeAzureOpenAI(options: FakeAzureOptions): Promise<FakeAzureOpenAI> {
  const versions = new Set(options.apiVersions ?? ["2024-10-21", "2025-04-01-preview"]);
  const issued = new Map<string, number>(); // token → expiry (ms)
  const tokens = { granted: 0, refused: 0 };
  const flavour = AZURE_FLAVOUR(options.deployments);

  const routes: Record<
    string,
    (reply: RenderableReply, req: RecordedRequest, res: ServerResponse) => Promise<void>
  > = {
    "/openai/v1/chat/completions": (reply, req, res) => renderChatCompletion(reply, req, res, flavour),
    "/openai/v1/embeddings": renderEmbeddings,
    "/openai/v1/responses": renderResponses,
    "/openai/responses": renderResponses,
  };
  for (const name of Object.keys(options.deployments)) {
    const base = `/openai/deployments/${encodeURIComponent(name)}`;
    routes[`${base}/chat/completions`] = (reply, req, res) => renderChatCompletion(reply, req, res, flavour);
    routes[`${base}/embeddings`] = renderEmbeddings;
  }

  const authorize = (req: RecordedRequest): Extract<FakeReply, { kind: "error" }> | null => {
    const [path, query = ""] = req.path.split("?") as [string, string?];
    const v1 = path.startsWith("/openai/v1/");
    const key = req.headers["api-key"];
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
    const tokenOk = bearer !== undefined && (issued.get(bearer) ?? 0) > Date.now();
    const keyOk =
      options.apiKey !== undefined && (key === options.apiKey || (v1 && bearer === options.apiKey));
    if (!keyOk && !tokenOk) {
      return bearer && !v1 && bearer === options.apiKey
        ? {
            kind: "error",
            status: 401,
            code: "PermissionDenied",
            message:
              "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.",
          }
        : {
            kind: "error",
            status: 401,
            code: "401",
            message:
              "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
          };
    }
    if (!v1) {
      const version = new URLSearchParams(query).get("api-version");
      if (!version) return { kind: "error", status: 404, code: "404", message: "Resource not found" };
      if (!versions.has(version))
        return { kind: "error", status: 400, code: "BadRequest", message: "API version not supported" };
    }
    const deployment = deploymentOf(req);
    if (path.endsWith("/responses")) return null;
    if (!deployment || !Object.hasOwn(options.deployments, deployment)) return DEPLOYMENT_NOT_FOUND;
    return null;
  };

  const tokenPath = options.entra ? `/${options.entra.tenantId}/oauth2/v2.0/token` : undefined;
  const fake = await startFakeServer({
    // The main route is one of `routes`; render answers the refusals and unknown paths in Azure's shape.
    render: async (reply, req, res) => {
      const path = req.path.split("?")[0]!;
      const route = routes[path];
      // A path no route serves (the harness's 404): a deployment that does not exist, or no such API.
      if (!route && DATED.test(path)) return sendAzureError(res, DEPLOYMENT_NOT_FOUND);
      if (!route) return sendAzureError(res, { status: 404, code: "404", message: "Resource not found" });
      if (reply.kind === "error") return sendAzureError(res, reply);
      return route(reply, req, res);
    },
    routes: Object.fromEntries(
      Object.entries(routes).map(([path, render]) => [
        path,
        (reply: RenderableReply, req: RecordedRequest, res: ServerResponse) =>
          reply.kind === "error" ? Promise.resolve(sendAzureError(res, reply)) : render(reply, req, res),
      ]),
    ),
    authorize,
    services: tokenPath
      ? {
          [tokenPath]: (req, res) => {
            const form = new URLSearchParams(req.rawBody);
            const app = options.entra!;
            if (
              form.get("grant_type") !== "client_credentials" ||
              form.get("client_id") !== app.clientId ||
              form.get("client_secret") !== app.clientSecret ||
              form.get("scope") !== "https://cognitiveservices.azure.com/.default"
            ) {
              tokens.refused++;
              return sendJson(res, 401, {
                error: "invalid_client",
                error_description:
                  "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.\r\nTrace ID: 0",
              });
            }
            tokens.granted++;
            const expiresIn = app.expiresInSeconds ?? 3599;
            const token = `eyJ0eXAiOiJKV1Qi.${randomBytes(24).toString("base64url")}`;
            issued.set(token, Date.now() + expiresIn * 1000);
            sendJson(res, 200, {
              token_type: "Bearer",
              expires_in: expiresIn,
              ext_expires_in: expiresIn,
              access_token: token,
            });
          },
        }
      : undefined,
  });
  return Object.assign(fake, { endpoint: fake.url, tokens });
}

/** Azure's error body: `{error: {code, message}}` (a content filter's adds `param` and `innererror`). */
function sendAzureError(
  res: ServerResponse,
  reply: { status: number; message?: string; code?: string; headers?: Record<string, string> },
): void {
  sendJson(
    res,
    reply.status,
    {
      error: {
        code: reply.code ?? String(reply.status),
        message: reply.message ?? `Fake Azure error (${reply.status})`,
      },
    },
    { "apim-request-id": randomBytes(16).toString("hex"), ...reply.headers },
  );
}

/** Azure's refusal of a prompt its content filter filtered: HTTP 400 with code `content_filter`. */
export function azurePromptFiltered(category = "violence", severity = "high"): FakeReply {
  return {
    kind: "raw",
    status: 400,
    json: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: "prompt",
        code: "content_filter",
        status: 400,
        innererror: {
          code: "ResponsibleAIPolicyViolation",
          content_filter_result: { ...AZURE_SAFE_VERDICTS, [category]: { filtered: true, severity } },
        },
      },
    },
    headers: { "content-type": "application/json" },
  };
}

/** An answer Azure cut short because its content filter filtered the output (finish_reason content_filter). */
export function azureAnswerFiltered(model: string, category = "violence", severity = "medium"): FakeReply {
  return {
    kind: "raw",
    json: {
      id: "chatcmpl-filtered",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: AZURE_SAFE_VERDICTS }],
      choices: [
        {
          index: 0,
          finish_reason: "content_filter",
          message: { role: "assistant", content: "The first part" },
          content_filter_results: { ...AZURE_SAFE_VERDICTS, [category]: { filtered: true, severity } },
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
    },
  };
}

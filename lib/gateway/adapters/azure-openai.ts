import "server-only";
import OpenAI, { AzureOpenAI } from "openai";
import { AZURE_DEFAULT_API_VERSION, azureEndpoint } from "../azure";
import type { ResolvedProvider } from "../config";
import type { EntraTokenSource } from "./entra";
import { OpenAIAdapter, SDK_CLIENT_OPTIONS } from "./openai";

/**
 * Azure OpenAI's chat completions through the official SDK. A candidate's `model` is the deployment's name. The
 * v1 API (`/openai/v1/…`, the model in the body) goes through the OpenAI client; a dated version
 * (`/openai/deployments/{deployment}/…?api-version=…`) through its AzureOpenAI client. A key travels as
 * `api-key`, an Entra ID token as a bearer.
 */
export function azureOpenAIAdapter(provider: ResolvedProvider, tokens: EntraTokenSource | undefined) {
  const endpoint = azureEndpoint(provider);
  const apiVersion = provider.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  const tokenProvider = tokens ? () => tokens.token() : undefined;
  let openai: OpenAI;
  if (apiVersion === "v1") {
    openai = new OpenAI({
      baseURL: `${endpoint}/openai/v1`,
      apiKey: tokenProvider ?? provider.apiKey,
      // A key goes as Azure's own header, which every API version takes, and not also as a bearer.
      defaultHeaders: provider.apiKey ? { "api-key": provider.apiKey, authorization: null } : undefined,
      ...SDK_CLIENT_OPTIONS,
    });
  } else {
    openai = new AzureOpenAI({
      endpoint,
      apiVersion,
      ...(tokenProvider ? { azureADTokenProvider: tokenProvider } : { apiKey: provider.apiKey }),
      ...SDK_CLIENT_OPTIONS,
    });
  }
  return new OpenAIAdapter({ client: { openai, type: "azure-openai" } });
}

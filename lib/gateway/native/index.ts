import type { ResolvedProvider } from "../config";
import { BedrockProvider } from "./bedrock";
import { GeminiProvider } from "./gemini";
import { GoogleTokenSource } from "./google-auth";
import type { NativeProvider } from "./types";

export type { NativeProvider, NativeRequest, NativeTarget } from "./types";

/** The native API a provider of this type speaks, or undefined for the types that speak OpenAI's or Anthropic's. */
export function createNative(provider: ResolvedProvider): NativeProvider | undefined {
  switch (provider.type) {
    case "bedrock":
      return new BedrockProvider(provider);
    case "gemini":
      return new GeminiProvider({ type: "gemini", apiKey: provider.apiKey ?? "", baseUrl: provider.baseUrl });
    case "vertex":
      return new GeminiProvider({
        type: "vertex",
        project: provider.project!,
        location: provider.location!,
        tokens: new GoogleTokenSource(provider.serviceAccount!),
        baseUrl: provider.baseUrl,
      });
    default:
      return undefined;
  }
}

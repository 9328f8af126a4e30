import type { ResolvedProvider } from "../config";
import { BedrockProvider } from "./bedrock";
import type { NativeProvider } from "./types";

export type { NativeProvider, NativeRequest, NativeTarget } from "./types";

/** The native API a provider of this type speaks, or undefined for the types that speak OpenAI's or Anthropic's. */
export function createNative(provider: ResolvedProvider): NativeProvider | undefined {
  switch (provider.type) {
    case "bedrock":
      return new BedrockProvider(provider);
    default:
      return undefined;
  }
}

// PLACEHOLDER until the rate-limit helper lands.
import type { RateLimitState } from "./types";

export function rateLimitHeaders(_state: RateLimitState): [string, string][] {
  return [];
}

import { V1_EVALS_PREFIX, v1Evals } from "@/features/evals/server/v1";
import { container } from "@/server/container";

const noParams = { params: Promise.resolve({}) };

/**
 * The OpenAI-compatible API: the same framework-agnostic handler the lean server (`npm run gateway`) serves.
 * /v1/evals/… (the CI gate's evaluation endpoints, API-key access) is answered here, beside it.
 */
export const GET = (req: Request) => (isEvals(req) ? v1Evals(req, noParams) : container().v1.handler(req));
export const POST = (req: Request) => (isEvals(req) ? v1Evals(req, noParams) : container().v1.handler(req));

function isEvals(req: Request): boolean {
  const start = req.url.indexOf("/v1/evals/");
  return start > 0 && new URL(req.url).pathname.startsWith(V1_EVALS_PREFIX);
}

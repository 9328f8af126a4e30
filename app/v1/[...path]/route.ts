import { container } from "@/lib/container";

/** The OpenAI-compatible API: the same framework-agnostic handler the lean server (`npm run gateway`) serves. */
export const GET = (req: Request) => container().v1.handler(req);
export const POST = (req: Request) => container().v1.handler(req);

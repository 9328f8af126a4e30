import { v1Handler } from "@/lib/v1";

/** The OpenAI-compatible API: the same framework-agnostic handler the lean server (`npm run gateway`) serves. */
export const GET = (req: Request) => v1Handler()(req);
export const POST = (req: Request) => v1Handler()(req);

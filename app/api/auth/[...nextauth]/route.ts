import type { NextRequest } from "next/server";
import { getDb } from "@/db";
import { handlers } from "@/lib/auth";
import { tooManySignIns } from "@/lib/auth/sign-in";
import { clientAddress, throttleRetryAfter } from "@/lib/auth/throttle";
import { toErrorResponse } from "@/lib/errors";

export const GET = handlers.GET;

/** next-auth's own credentials callback is throttled exactly like /api/login, so it is no way around the limit. */
export async function POST(req: NextRequest): Promise<Response> {
  if (req.nextUrl.pathname.endsWith("/callback/credentials")) {
    const form = await req
      .clone()
      .formData()
      .catch(() => null);
    const email = String(form?.get("email") ?? "");
    const wait = await throttleRetryAfter(await getDb(), { email, address: clientAddress(req.headers) });
    if (wait > 0) {
      const answer = toErrorResponse(tooManySignIns(wait), crypto.randomUUID());
      return Response.json(answer.body, { status: answer.status, headers: answer.headers });
    }
  }
  return handlers.POST(req);
}

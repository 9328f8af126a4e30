import type { NextRequest } from "next/server";
import { getDb } from "@/db";
import { handlers } from "@/lib/auth";
import { passSignInThrottle } from "@/lib/auth/sign-in";
import { toErrorResponse } from "@/lib/core/errors/app-error";
import { clientAddress } from "@/lib/http/client-address";

export const GET = handlers.GET;

/** next-auth's own credentials callback is throttled exactly like /api/login, so it is no way around the limit. */
export async function POST(req: NextRequest): Promise<Response> {
  if (req.nextUrl.pathname.endsWith("/callback/credentials")) {
    const form = await req
      .clone()
      .formData()
      .catch(() => null);
    const email = String(form?.get("email") ?? "");
    try {
      await passSignInThrottle(await getDb(), { email, address: clientAddress(req.headers) });
    } catch (error) {
      const answer = toErrorResponse(error, crypto.randomUUID());
      return Response.json(answer.body, { status: answer.status, headers: answer.headers });
    }
  }
  return handlers.POST(req);
}

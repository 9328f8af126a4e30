import { loginSchema, signInWithPassword } from "@/lib/auth/sign-in";
import { readJson, route } from "@/lib/http/route";

export const POST = route(async (req) => {
  const input = await readJson(req, loginSchema);
  const redirectTo = await signInWithPassword(input, req.headers);
  return Response.json({ ok: true, redirectTo });
});

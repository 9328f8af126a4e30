// The account and sign-in routes as the browser calls them.
import type { z } from "zod";
import type { loginSchema } from "@/lib/auth/sign-in";
import { sendJson } from "@/lib/client/api";
import type { changePasswordInput, OthersSignedOut, PasswordChanged } from "./contracts";

export const accountApi = {
  changePassword: (input: z.input<typeof changePasswordInput>) =>
    sendJson<PasswordChanged>("POST", "/api/account/password", input),
  signOutOtherSessions: () => sendJson<OthersSignedOut>("DELETE", "/api/account/sessions"),
  /** Signs in with a password; the answer says where to go (a full navigation, so the session is read anew). */
  signIn: (input: z.input<typeof loginSchema>) =>
    sendJson<{ ok: true; redirectTo: string }>("POST", "/api/login", input),
};

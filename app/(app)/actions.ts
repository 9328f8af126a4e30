"use server";

import { getDb } from "@/db";
import { auth, signOut } from "@/lib/auth";
import { revokeSession } from "@/lib/auth/sessions";

/** Ends this session on the server (its cookie is refused from now on, even if kept), then clears the cookie. */
export async function signOutAction() {
  const sessionId = (await auth())?.sessionId;
  if (sessionId) await revokeSession(await getDb(), sessionId);
  await signOut({ redirectTo: "/login" });
}

// The signed-in session of route-handler tests: the test decides what the session cookie says (signing the
// cookie is next-auth's job), and the guards and routes under test read it as they would in the app.
//
// vi.mock is hoisted per file, so each file keeps one line of its own and the factory hands over this module:
//
//   import { session } from "../helpers/session";
//   vi.mock("@/lib/auth/session", () => import("../helpers/session"));
//
// then `session.claims = { userId, tenantId }` signs a user in and `session.claims = null` signs out. The test's
// import and the mock's are the same module instance; vitest gives each test file its own, so nothing leaks
// between files.
import type * as real from "@/lib/auth/session";
import type { SessionClaims } from "@/lib/auth/session";

/** What the session cookie says for the rest of the test: no one until a test signs someone in. */
export const session: { claims: SessionClaims | null } = { claims: null };

/** Stands in for the real reader (same signature): the claims the test set, with no cookie or database. */
export const readSessionClaims: typeof real.readSessionClaims = async () => session.claims;

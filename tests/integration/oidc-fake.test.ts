// The fake OIDC server used by the single sign-on tests is a real OpenID Connect provider: this walks its
// authorization-code flow with plain fetch (authorize → its login page → its consent page → code → token) and
// checks the ID token the way next-auth does (oauth4webapi: issuer, audience, nonce, PKCE, claims).
import { createHash, randomBytes } from "node:crypto";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOidc, startFakeOidc } from "../fakes/oidc";

const REDIRECT_URI = "http://127.0.0.1:3999/api/auth/callback/oidc";

let oidc: FakeOidc;
beforeAll(async () => {
  oidc = await startFakeOidc({ redirectUris: [REDIRECT_URI] });
});
afterAll(async () => {
  await oidc?.close();
});

/** A browser's cookie jar, enough for one host. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** One request as a browser would make it, without following redirects. */
async function step(jar: Jar, url: string, form?: Record<string, string>) {
  const res = await fetch(url, {
    method: form ? "POST" : "GET",
    redirect: "manual",
    headers: {
      cookie: jar.header(),
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    body: form ? new URLSearchParams(form) : undefined,
  });
  jar.take(res);
  return res;
}

const formAction = (html: string) => /<form[^>]*action="([^"]+)"/.exec(html)?.[1];

/** Runs the whole flow for one login; returns the validated ID token claims. */
async function signInThroughProvider(login: string) {
  const issuer = new URL(oidc.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }),
  );
  const client: oauth.Client = { client_id: oidc.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(16).toString("base64url");
  const nonce = randomBytes(16).toString("base64url");
  const authorize = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({
    client_id: oidc.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }))
    authorize.searchParams.set(k, v);

  const jar = new Jar();
  let res = await step(jar, authorize.href);
  const prompts: string[] = [];
  // Follow redirects; answer the login and the consent pages like a person would.
  for (let hops = 0; hops < 12; hops++) {
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get("location")!, oidc.issuer);
      if (next.href.startsWith(REDIRECT_URI)) {
        const params = oauth.validateAuthResponse(as, client, next, state);
        const tokenResponse = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(oidc.clientSecret),
          params,
          REDIRECT_URI,
          verifier,
          { [oauth.allowInsecureRequests]: true },
        );
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, {
          expectedNonce: nonce,
          requireIdToken: true,
        });
        return { claims: oauth.getValidatedIdTokenClaims(tokens)!, prompts };
      }
      res = await step(jar, next.href);
      continue;
    }
    const html = await res.text();
    expect(res.status, html).toBe(200);
    const action = formAction(html);
    if (!action) throw new Error(`no form on ${res.url}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1] ?? "";
    prompts.push(prompt);
    const fields: Record<string, string> =
      prompt === "login" ? { prompt, login, password: "anything" } : { prompt };
    res = await step(jar, new URL(action, oidc.issuer).href, fields);
  }
  throw new Error("the authorization flow did not reach the redirect URI");
}

describe("the fake OIDC server (oidc-provider)", () => {
  it("announces an http issuer whose discovery document next-auth's client accepts", async () => {
    const res = await fetch(`${oidc.issuer}/.well-known/openid-configuration`);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(oidc.issuer);
    expect(doc.code_challenge_methods_supported).toContain("S256");
    expect(doc.claims_supported).toEqual(expect.arrayContaining(["email", "email_verified", "name"]));
  });

  it("runs the authorization-code flow through its login and consent pages to a signed ID token", async () => {
    const { claims, prompts } = await signInThroughProvider("admin@acme.test");
    expect(prompts).toEqual(["login", "consent"]);
    expect(claims).toMatchObject({
      iss: oidc.issuer,
      aud: oidc.clientId,
      sub: "admin@acme.test",
      email: "admin@acme.test",
      email_verified: true,
      name: "Admin (SSO)",
    });
  });

  it("issues email_verified: false for a login starting with 'unverified'", async () => {
    const { claims } = await signInThroughProvider("unverified@globex.test");
    expect(claims).toMatchObject({ email: "unverified@globex.test", email_verified: false });
  });
});

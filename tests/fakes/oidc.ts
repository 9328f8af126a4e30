// A real OpenID Connect provider (panva's oidc-provider, the certified implementation) for the single sign-on
// tests: one confidential client, its built-in development login and consent pages, and any login accepted.
// The login typed on its page is the account: sub and email are that text; an email starting with
// "unverified" comes with email_verified: false.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export type FakeOidc = {
  /** The issuer, e.g. http://127.0.0.1:3192 (no trailing slash, as the provider announces it). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
};

export const FAKE_OIDC_CLIENT_ID = "tollgate-e2e";
export const FAKE_OIDC_CLIENT_SECRET = "tollgate-e2e-oidc-secret-0123456789";

/** The claims the provider issues for a login: what next-auth reads from the ID token. */
export function fakeOidcClaims(login: string) {
  const email = login.trim();
  const local = email.split("@")[0] ?? email;
  return {
    sub: email,
    email,
    email_verified: !email.startsWith("unverified"),
    name: `${local.charAt(0).toUpperCase()}${local.slice(1)} (SSO)`,
  };
}

export async function startFakeOidc(options: {
  port?: number;
  host?: string;
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
}): Promise<FakeOidc> {
  const host = options.host ?? "127.0.0.1";
  const clientId = options.clientId ?? FAKE_OIDC_CLIENT_ID;
  const clientSecret = options.clientSecret ?? FAKE_OIDC_CLIENT_SECRET;
  // The issuer needs the port before listening, so an ephemeral port is found first.
  const port = options.port || (await freePort(host));
  const issuer = `http://${host}:${port}`;
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => fakeOidcClaims(id) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The claims go into the ID token (as Google, Entra ID, Keycloak and Okta do), where next-auth reads them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    jwks: { keys: [{ ...signingKey, kid: "fake-oidc", alg: "RS256", use: "sig" }] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    pkce: { required: () => true, methods: ["S256"] },
    ttl: {
      AuthorizationCode: 60,
      AccessToken: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    renderError(ctx, out) {
      ctx.type = "json";
      ctx.body = out;
    },
  });
  provider.on("server_error", (_ctx, error) => console.error(`fake OIDC server error: ${error.message}`));

  const server: Server = await new Promise((resolve, reject) => {
    const s = provider.listen(port, host, () => resolve(s));
    s.once("error", reject);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

async function freePort(host: string): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

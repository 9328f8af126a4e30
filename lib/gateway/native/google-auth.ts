import { createSign } from "node:crypto";
import { readFileSync } from "node:fs";
import { OAuthTokenSource, type TokenGrant } from "../adapters/oauth-token";

/** The scope Vertex AI's generateContent is called with. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** How long a signed assertion is valid (Google takes at most an hour). */
const ASSERTION_LIFETIME_S = 3600;

/** The fields of a Google service-account JSON key the JWT-bearer grant needs. */
export type ServiceAccountKey = {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
};

/** A service-account key file, read and checked: what is wrong with it is named, never its contents. */
export function readServiceAccountKey(file: string): ServiceAccountKey {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `cannot read the service-account key ${file}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (parsed.type !== "service_account")
    throw new Error(`${file} is not a service-account key (its type is ${String(parsed.type)})`);
  for (const field of ["client_email", "private_key"] as const)
    if (typeof parsed[field] !== "string" || !parsed[field])
      throw new Error(`the service-account key ${file} has no ${field}`);
  return {
    client_email: parsed.client_email as string,
    private_key: parsed.private_key as string,
    private_key_id: typeof parsed.private_key_id === "string" ? parsed.private_key_id : undefined,
    token_uri:
      typeof parsed.token_uri === "string" ? parsed.token_uri : "https://oauth2.googleapis.com/token",
  };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** The RS256-signed assertion of the OAuth 2.0 JWT-bearer grant (RFC 7523), as Google's token endpoint takes it. */
export function signedAssertion(key: ServiceAccountKey, scope: string, nowSeconds: number): string {
  const header = { alg: "RS256", typ: "JWT", ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = {
    iss: key.client_email,
    scope,
    aud: key.token_uri,
    iat: nowSeconds,
    exp: nowSeconds + ASSERTION_LIFETIME_S,
  };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(key.private_key);
  return `${unsigned}.${base64url(signature)}`;
}

/**
 * Access tokens for one Google service account (the JWT-bearer grant at its key's `token_uri`), as Vertex AI
 * takes them: fetched on first use, kept until five minutes before they expire, and fetched once however many
 * calls ask at the same time. A refused grant is an `auth` failure (the router moves to the next candidate); an
 * unreachable endpoint a `connection` one (it retries).
 */
export class GoogleTokenSource extends OAuthTokenSource {
  constructor(
    private readonly key: ServiceAccountKey,
    now: () => number = Date.now,
    private readonly scope = CLOUD_PLATFORM_SCOPE,
  ) {
    super(now);
  }

  protected grant(): TokenGrant {
    return {
      url: this.key.token_uri,
      form: {
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: signedAssertion(this.key, this.scope, Math.floor(this.now() / 1000)),
      },
      unreachable: "Google's token endpoint did not answer",
      refused: `Google refused a token for Vertex AI (${this.key.client_email})`,
    };
  }
}

import type { EntraCredentials } from "../config";
import { OAuthTokenSource, type TokenGrant } from "./oauth-token";

/**
 * Bearer tokens from Microsoft Entra ID for one application (the OAuth 2.0 client credentials grant), as
 * Azure OpenAI takes them: fetched on first use, kept until five minutes before they expire, and fetched once
 * however many calls ask at the same time. A refused grant is an `auth` failure (the router moves to the next
 * candidate); an unreachable endpoint a `connection` one (it retries).
 */
export class EntraTokenSource extends OAuthTokenSource {
  constructor(
    private readonly credentials: EntraCredentials,
    now: () => number = Date.now,
  ) {
    super(now);
  }

  protected grant(): TokenGrant {
    const { authorityHost, tenantId, clientId, clientSecret, scope } = this.credentials;
    return {
      url: `${authorityHost.replace(/\/+$/, "")}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`,
      form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope },
      unreachable: "Microsoft Entra ID did not answer a token request",
      refused: "Microsoft Entra ID refused a token for Azure OpenAI",
    };
  }
}

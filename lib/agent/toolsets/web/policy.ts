/** The tenant's web_fetch setting: off, only the listed domains (and their subdomains), or any public address. */
export type WebFetchMode = "off" | "allowlist" | "any";
export type WebFetchPolicy = { mode: WebFetchMode; domains: readonly string[] };

/** Without a tenant setting (a test's tool set, a tool set with no policy source): any public address. */
export const OPEN_POLICY: WebFetchPolicy = { mode: "any", domains: [] };

/** A host name as compared: lower case, without a trailing dot or IPv6 brackets. */
const normalHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");

/** Whether the policy lets web_fetch reach `host`: a listed domain allows itself and its subdomains. */
export function hostAllowed(policy: WebFetchPolicy, host: string): boolean {
  if (policy.mode === "any") return true;
  if (policy.mode === "off") return false;
  const name = normalHost(host);
  return policy.domains.some((domain) => {
    const d = normalHost(domain);
    return d !== "" && (name === d || name.endsWith(`.${d}`));
  });
}

/** Why the tenant's setting refuses this URL (a first request or a redirect hop), or null. */
export function policyRefusal(policy: WebFetchPolicy, url: URL): string | null {
  if (policy.mode === "off") return "refused: web_fetch is switched off for this organisation";
  if (hostAllowed(policy, url.hostname)) return null;
  const listed = policy.domains.length ? policy.domains.join(", ") : "none";
  return `refused: ${url.hostname} is not among this organisation's allowed web_fetch domains (${listed})`;
}

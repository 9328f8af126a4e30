/**
 * The worst inputs for the masking rules (lib/core/text/mask.ts): for each rule, strings that start its match
 * everywhere and almost finish it (near misses), built to `size` characters. A backtracking rule takes
 * quadratic time or worse on its own inputs; a linear one takes milliseconds.
 */
const fill = (unit: string, size: number, head = "", tail = "") =>
  head + unit.repeat(Math.max(1, Math.ceil((size - head.length - tail.length) / unit.length))) + tail;

export function worstMaskInputs(size: number): Record<string, string[]> {
  return {
    private_key: [
      fill("PRIVATE KEY ", size, "-----BEGIN "),
      fill("-----BEGIN PRIVATE KEY ", size),
      fill("RSA ", size, "-----BEGIN "),
      fill("-----END PRIVATE KEY PRIVATE KEY ", size, "-----BEGIN PRIVATE KEY-----\n"),
    ],
    password: [
      fill("p", size, "a://u:"),
      fill(":", size, "a://"),
      fill("a.b+c-", size, "", "://"),
      fill("a://b:c", size),
      fill("@", size, "a://u:", "/"),
    ],
    tollgate_key: [
      fill("a", size, "tg_"),
      fill("tg_", size),
      fill(" tg_abcdefghijklmnopqrstuvwxyz01234", size),
    ],
    jwt: [fill("a", size, "eyJ"), fill("eyJa.", size), fill("eyJa..", size), fill(".a", size, "eyJa.")],
    anthropic_key: [fill("-", size, "sk-ant-"), fill("sk-ant-", size), fill(" sk-ant-abc", size)],
    openai_key: [fill("a", size, "sk-"), fill("sk-", size), fill(" sk-abcdefghijklmnopqrst", size)],
    github_token: [fill("a", size, "ghp_", "_"), fill(" ghp_", size), fill("a", size, "github_pat_")],
    stripe_key: [fill("a", size, "sk_live_", "_"), fill(" sk_live_", size), fill("+", size, "whsec_")],
    slack_token: [
      fill("a", size, "xoxb."),
      fill("-_", size, "xoxb.-"),
      fill(" xapp-1-", size),
      fill("xoxb-", size),
    ],
    slack_webhook: [
      fill("https://hooks.slack.com/services/", size),
      fill("/", size, "https://hooks.slack.com/services"),
    ],
    google_api_key: [fill("AIza", size), fill(" AIza0123456789012345678901234567890123", size)],
    aws_key: [fill("AKIA", size), fill(" AKIA0123456789ABCDE", size)],
    aws_secret_key: [
      fill(" ", size, "secret_access_key", "x"),
      fill(" ", size, "secret_access_key=", "a"),
      fill("secret_access_key= ", size),
      fill("secret_", size),
    ],
    bearer: [
      fill(" ", size, "Bearer", "!"),
      fill("Bearer ", size),
      fill("Basic ", size),
      fill("=", size, "Bearer a"),
    ],
    card: [fill("4 ", size), fill("4-", size), fill("4", size), fill(" 4111 1111 1111 111", size)],
    keyed_json: [
      fill("\\a", size, '"password":"'),
      fill("'a':", size, '"password":"'),
      fill(" ", size, '"a"', ":"),
      fill('"a"', size),
      fill("e", size, '"a":-1'),
      fill('"a":', size),
    ],
    keyed_assignment: [fill("a=", size), fill("a", size, "", "="), fill(" a.b=", size)],
    secret_key_names: [fill("password", size), fill("a", size, "", "_token")],
  };
}

/** The 160 KB string of the issue: "-----BEGIN " and "PRIVATE KEY " over and over, never a full header. */
export const ISSUE_PRIVATE_KEY_INPUT = `-----BEGIN ${"PRIVATE KEY ".repeat(13_333)}`;

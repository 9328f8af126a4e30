import { describe, expect, it } from "vitest";
import { maskSecrets, maskText, operatorMaskPatterns, patternsFromEnv } from "@/lib/core/text/mask";

// Fake secrets are assembled at run time so secret scanners do not flag this file on push.
const BASE62 = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ";
const openaiKey = `sk-${"T3x9".repeat(12)}`;
const openaiProjectKey = `sk-proj-${`${BASE62}_-`.repeat(4)}`;
const anthropicKey = `sk-ant-api03-${BASE62.repeat(2)}-AA`;
const awsKeyId = `AKIA${"IOSFODNN7EXAMPLE"}`;
const awsSessionKeyId = `ASIA${"Y34FZKBOKMUTVV7A"}`;
const awsSecret = `wJalrXUtnFEMI/K7MDENG/${"bPxRfiCYEXAMPLEKEY"}`;
const githubToken = (prefix: string) => `${prefix}_${BASE62}`;
const githubPat = `github_pat_11ABCDEFG0${"123456789"}_${BASE62}${BASE62}`;
const stripeKey = (prefix: string) => `${prefix}_${"51HqLyjWDarjtT1zd"}${BASE62.slice(0, 30)}`;
const slackToken = (prefix: string) => `${prefix}-${"2048123456"}-${"1201234567890"}-${BASE62.slice(0, 24)}`;
const slackAppToken = `xapp-1-A0${"12ABCDEFG"}-${"3045678901234"}-${"4f3a9c1b2d".repeat(6)}`;
const slackWebhook = `https://hooks.slack.com/services/T0${"1ABCDEF"}/B0${"2GHIJKL"}/${BASE62.slice(0, 24)}`;
const googleKey = `AIza${"SyD-9tSrke72PouQMnMX"}${"-a7eZSW0jkFMBWY"}`;
const base64url = (text: string) => Buffer.from(text).toString("base64url");
const jwt = [
  base64url('{"alg":"HS256","typ":"JWT"}'),
  base64url('{"sub":"user-42","tenant":"acme","exp":1893456000}'),
  "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
].join(".");

describe("maskSecrets: key-based", () => {
  it("masks the value of every credential-named key, whatever its type", () => {
    const masked = maskSecrets({
      password: "hunter2",
      passwd: "hunter2",
      db_pwd: 1234,
      clientSecret: "s3cr3t",
      "X-Api-Key": "k-123",
      api_key: "k-456",
      AccessKey: "k-789",
      access_token: "at",
      refresh_token: "rt",
      sessionToken: { value: "nested", expires: 1 },
      Authorization: "Token 1234",
      auth: ["user", "pass"],
      Cookie: "sid=1",
      "Set-Cookie": ["sid=1; HttpOnly"],
      private_key: "pem",
      client_secret: "cs",
      AWS_SECRET_ACCESS_KEY: "aws",
      session: { id: 1 },
      username: "alice",
    });
    expect(masked).toEqual({
      password: "[masked]",
      passwd: "[masked]",
      db_pwd: "[masked]",
      clientSecret: "[masked]",
      "X-Api-Key": "[masked]",
      api_key: "[masked]",
      AccessKey: "[masked]",
      access_token: "[masked]",
      refresh_token: "[masked]",
      sessionToken: "[masked]",
      Authorization: "[masked]",
      auth: "[masked]",
      Cookie: "[masked]",
      "Set-Cookie": "[masked]",
      private_key: "[masked]",
      client_secret: "[masked]",
      AWS_SECRET_ACCESS_KEY: "[masked]",
      session: "[masked]",
      username: "alice",
    });
  });

  it("leaves usage counts alone: tokens, inputTokens, outputTokens, tokenCount, max_tokens, cachedInputTokens", () => {
    const usage = {
      tokens: 1200,
      inputTokens: 1000,
      outputTokens: 200,
      tokenCount: 1200,
      max_tokens: 4096,
      cachedInputTokens: 512,
      maxTokens: 4096,
      total_tokens: 1200,
    };
    expect(maskSecrets({ usage })).toEqual({ usage });
  });

  it("masks credential keys inside serialized JSON, Python reprs and key=value text", () => {
    expect(maskText('{"model":"gpt-4o","api_key":"k-123","max_tokens":100}')).toBe(
      '{"model":"gpt-4o","api_key":"[masked]","max_tokens":100}',
    );
    expect(maskText("{'user': 'bob', 'password': 'hunter2', 'pin': 1}")).toBe(
      "{'user': 'bob', 'password': '[masked]', 'pin': 1}",
    );
    expect(maskText("GET /v1/items?page=2&access_token=abc.def&limit=10")).toBe(
      "GET /v1/items?page=2&access_token=[masked]&limit=10",
    );
    expect(maskText("Cookie: theme=dark; session=9f8e7d; lang=en")).toBe(
      "Cookie: theme=dark; session=[masked]; lang=en",
    );
    expect(maskText("retrying with max_tokens=1024 inputTokens=5")).toBe(
      "retrying with max_tokens=1024 inputTokens=5",
    );
  });
});

describe("maskSecrets: value-based", () => {
  it("masks OpenAI keys, legacy and project, inside text", () => {
    expect(maskText(`OPENAI_API_KEY is ${openaiKey}, ok`)).toBe("OPENAI_API_KEY is [masked:openai_key], ok");
    expect(maskText(`using ${openaiProjectKey}`)).toBe("using [masked:openai_key]");
  });

  it("masks Anthropic keys as anthropic_key, not openai_key", () => {
    const masked = maskText(`401 from api.anthropic.com: invalid x-api-key ${anthropicKey}`);
    expect(masked).toBe("401 from api.anthropic.com: invalid x-api-key [masked:anthropic_key]");
    expect(masked).not.toContain("openai_key");
  });

  it("masks AWS access key ids (AKIA and ASIA)", () => {
    expect(maskText(`creds ${awsKeyId} / ${awsSessionKeyId}`)).toBe(
      "creds [masked:aws_key] / [masked:aws_key]",
    );
  });

  it("masks an AWS secret key only next to a hint", () => {
    expect(maskText(`aws_secret_access_key=${awsSecret}`)).toBe(
      "aws_secret_access_key=[masked:aws_secret_key]",
    );
    expect(maskText(`{"AccessKeyId":"x","SecretAccessKey": "${awsSecret}"}`)).toBe(
      '{"AccessKeyId":"x","SecretAccessKey": "[masked:aws_secret_key]"}',
    );
    expect(maskText(`export AWS_SECRET_ACCESS_KEY="${awsSecret}"`)).toBe(
      'export AWS_SECRET_ACCESS_KEY="[masked:aws_secret_key]"',
    );
    // The same 40 characters with no hint are left alone: the shape alone matches hashes too.
    expect(maskText(`blob ${awsSecret}`)).toBe(`blob ${awsSecret}`);
  });

  it("masks GitHub tokens of every prefix and fine-grained PATs", () => {
    for (const prefix of ["ghp", "gho", "ghu", "ghs", "ghr"]) {
      expect(maskText(`token ${githubToken(prefix)} expired`)).toBe("token [masked:github_token] expired");
    }
    expect(maskText(`git push with ${githubPat}`)).toBe("git push with [masked:github_token]");
  });

  it("masks Stripe secret, restricted, publishable and webhook-signing keys, live and test", () => {
    for (const prefix of ["sk_live", "sk_test", "rk_live", "rk_test", "pk_live", "pk_test"]) {
      expect(maskText(`stripe.api_key = ${stripeKey(prefix)}; charge`)).toBe(
        "stripe.api_key = [masked:stripe_key]; charge",
      );
    }
    expect(maskText(`{"key":"${stripeKey("sk_live")}"}`)).toBe('{"key":"[masked:stripe_key]"}');
    expect(maskText(`endpoint secret whsec_${BASE62}`)).toBe("endpoint secret [masked:stripe_key]");
    // Words that merely start alike stay.
    expect(maskText("sk_live_mode is a flag; pk_test_run ok")).toBe("sk_live_mode is a flag; pk_test_run ok");
  });

  it("masks Slack bot, user, app-level and legacy tokens and incoming-webhook URLs", () => {
    for (const prefix of ["xoxb", "xoxp", "xoxa", "xoxr", "xoxs", "xoxe"]) {
      expect(maskText(`SLACK token ${slackToken(prefix)} posted`)).toBe(
        "SLACK token [masked:slack_token] posted",
      );
    }
    expect(maskText(`rotated xoxe.xoxp-1-${BASE62}`)).toBe("rotated [masked:slack_token]");
    expect(maskText(`socket mode with ${slackAppToken}`)).toBe("socket mode with [masked:slack_token]");
    expect(maskText(`POST ${slackWebhook} failed`)).toBe(
      "POST https://hooks.slack.com/services/[masked:slack_webhook] failed",
    );
    expect(maskText("see https://api.slack.com/docs and the xoxb- prefix")).toBe(
      "see https://api.slack.com/docs and the xoxb- prefix",
    );
  });

  it("masks Google API keys (AIza…)", () => {
    expect(maskText(`maps?key=${googleKey}&q=x`)).toBe("maps?key=[masked:google_api_key]&q=x");
    expect(maskText(`GOOGLE_KEY ${googleKey}`)).toBe("GOOGLE_KEY [masked:google_api_key]");
  });

  it("masks Bearer and Basic credentials but keeps the scheme word", () => {
    expect(maskText("Authorization: Bearer 8f2a9c41d7e0b3a6f5c2")).toBe(
      "Authorization: Bearer [masked:bearer]",
    );
    const basic = Buffer.from("deploy:correct-horse").toString("base64");
    expect(maskText(`curl -H 'Authorization: Basic ${basic}' https://x`)).toBe(
      "curl -H 'Authorization: Basic [masked:basic]' https://x",
    );
    expect(maskSecrets({ headers: ["Bearer 8f2a9c41d7e0b3a6f5c2"] })).toEqual({
      headers: ["Bearer [masked:bearer]"],
    });
  });

  it("masks JWTs", () => {
    expect(maskText(`id_token=${jwt}`)).not.toContain(jwt);
    expect(maskText(`{"note":"got ${jwt} back"}`)).toBe('{"note":"got [masked:jwt] back"}');
  });

  it("masks card numbers that pass Luhn, keeping the last 4 digits", () => {
    expect(maskText("card 4111 1111 1111 1111 declined")).toBe("card [masked:card …1111] declined");
    expect(maskText("pan=5555-5555-5555-4444.")).toBe("pan=[masked:card …4444].");
    expect(maskText("amex 378282246310005")).toBe("amex [masked:card …0005]");
    expect(maskText("discover 6011111111111117")).toBe("discover [masked:card …1117]");
  });

  it("leaves card-shaped numbers that fail Luhn alone", () => {
    for (const text of [
      "card 4111 1111 1111 1112 declined",
      "order 2024011500012345 shipped",
      "ref 4111-1111-1111-1112",
    ]) {
      expect(maskText(text)).toBe(text);
    }
  });

  it("masks only the password of a URL with credentials", () => {
    expect(maskText("connect ECONNREFUSED postgres://app:s3cr3t@db.internal:5432/app")).toBe(
      "connect ECONNREFUSED postgres://app:[masked:password]@db.internal:5432/app",
    );
    expect(maskText("redis://:p@ss:w0rd@cache:6379/0")).toBe("redis://:[masked:password]@cache:6379/0");
    expect(maskSecrets({ url: "https://bot:tok3n@git.example.com/org/repo.git" })).toEqual({
      url: "https://bot:[masked:password]@git.example.com/org/repo.git",
    });
  });

  it("masks PEM private key blocks, even a truncated one", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----";
    expect(maskText(`read id_rsa: ${pem}\ndone`)).toBe("read id_rsa: [masked:private_key]\ndone");
    expect(maskText("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA")).toBe(
      "[masked:private_key]",
    );
  });

  it("finds secrets in error messages, keys and nested arrays", () => {
    const error = new Error(`request failed for key ${openaiKey}`);
    expect(maskSecrets({ error })).toEqual({
      error: { name: "Error", message: "request failed for key [masked:openai_key]" },
    });
    expect(maskSecrets({ [awsKeyId]: { note: "keyed by id" } })).toEqual({
      "[masked:aws_key]": { note: "keyed by id" },
    });
  });
});

describe("maskSecrets: structure", () => {
  it("walks nested objects and arrays", () => {
    const payload = {
      tool: "http_request",
      arguments: { headers: { authorization: "Bearer x" }, body: [{ note: `use ${openaiKey}` }, [awsKeyId]] },
      result: { status: 200, tokens: 12, items: [1, "two", null, true] },
    };
    expect(maskSecrets(payload)).toEqual({
      tool: "http_request",
      arguments: {
        headers: { authorization: "[masked]" },
        body: [{ note: "use [masked:openai_key]" }, ["[masked:aws_key]"]],
      },
      result: { status: 200, tokens: 12, items: [1, "two", null, true] },
    });
  });

  it("does not mutate the input", () => {
    const input = { password: "hunter2", nested: { note: `key ${openaiKey}`, list: [awsKeyId] } };
    const before = structuredClone(input);
    const masked = maskSecrets(input);
    expect(input).toEqual(before);
    expect(masked).not.toBe(input);
    expect(masked.nested).not.toBe(input.nested);
  });

  it("turns Dates into ISO strings and drops functions and undefined like JSON", () => {
    const masked = maskSecrets({
      at: new Date("2024-01-15T10:30:00Z"),
      fn: () => 1,
      missing: undefined,
      list: [undefined, () => 1, 3],
    });
    expect(masked).toEqual({ at: "2024-01-15T10:30:00.000Z", list: [null, null, 3] });
    expect(Object.keys(masked)).toEqual(["at", "list"]);
    expect(maskSecrets({ password: undefined, token: () => "x" })).toEqual({});
  });

  it("replaces a cyclic reference with [circular] instead of hanging", () => {
    const node: Record<string, unknown> = { name: "root", children: [] };
    (node.children as unknown[]).push({ parent: node });
    node.self = node;
    const shared = { n: 1 };
    expect(maskSecrets({ node, a: shared, b: shared })).toEqual({
      node: { name: "root", children: [{ parent: "[circular]" }], self: "[circular]" },
      a: { n: 1 },
      b: { n: 1 },
    });
  });
});

describe("maskSecrets: no false positives", () => {
  it("returns ordinary text unchanged", () => {
    const texts = [
      "The password must be at least 12 characters; rotate your token and secret monthly.",
      "The basic idea: the bearer of a session cookie is trusted.",
      "Bearer tokens and Basic auth are both supported",
      "id 550e8400-e29b-41d4-a716-446655440000 created at 2024-01-15T10:30:00.000Z",
      "md5 9e107d9d372bb6826bd81d3542a419d6",
      "commit 3f786850e387550fdab836ed7e6dc881de23001b merged",
      "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "3f786850e387550fdab836ed7e6dc881de23001b",
      "epoch 1718000000006 ms, amount 1234.56, count 42, big 12345678901234567890123",
      "call +4915123456787 or (415) 555-2671",
      "https://example.com:8443/path?q=1&page=2#top and mailto:alice@example.com",
      "pip install scikit-learn; task-scheduler-service-worker-pool started",
      "sk-some-very-long-hyphenated-slug-name",
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      '{"inputTokens":10,"outputTokens":20,"max_tokens":4096,"model":"claude-sonnet-4"}',
      "x=1 y=2 total_tokens=30",
      "v1.2.3 C:\\Users\\alice\\secret-notes.txt",
    ];
    for (const text of texts) expect(maskText(text)).toBe(text);
  });

  it("leaves numbers, booleans and null untouched", () => {
    const value = { a: 4111111111111111, b: 1718000000006, c: true, d: null, e: [0, -1.5] };
    expect(maskSecrets(value)).toEqual(value);
  });
});

describe("operator patterns", () => {
  it("masks extraPatterns as [masked:custom]", () => {
    const options = { extraPatterns: [/\bEMP-\d{6}\b/g, /acme_live_[a-z0-9]+/] };
    expect(maskText("EMP-123456 and EMP-654321 used acme_live_abc123", options)).toBe(
      "[masked:custom] and [masked:custom] used [masked:custom]",
    );
    expect(maskSecrets({ note: "EMP-123456" }, options)).toEqual({ note: "[masked:custom]" });
    expect(maskText("EMP-123456")).toBe("EMP-123456");
  });

  it("reads MASK_PATTERNS from the environment", () => {
    const patterns = patternsFromEnv({ MASK_PATTERNS: '["EMP-\\\\d{6}", "internal-[a-f0-9]{8}"]' });
    expect(patterns.map((pattern) => pattern.source)).toEqual(["EMP-\\d{6}", "internal-[a-f0-9]{8}"]);
    expect(maskText("EMP-123456 internal-deadbeef", { extraPatterns: patterns })).toBe(
      "[masked:custom] [masked:custom]",
    );
    expect(patternsFromEnv({})).toEqual([]);
    expect(patternsFromEnv({ MASK_PATTERNS: " " })).toEqual([]);
  });

  it("applies the process's MASK_PATTERNS to every call, and follows the variable when it changes", () => {
    const before = process.env.MASK_PATTERNS;
    try {
      process.env.MASK_PATTERNS = '["EMP-\\\\d{6}"]';
      expect(maskText("EMP-123456 with sk-ant-api03-abcdefghijklmnopqrstuvwx")).toBe(
        "[masked:custom] with [masked:anthropic_key]",
      );
      expect(maskSecrets({ note: "EMP-123456" })).toEqual({ note: "[masked:custom]" });
      process.env.MASK_PATTERNS = '["internal-[a-f0-9]{8}"]';
      expect(maskText("EMP-123456 internal-deadbeef")).toBe("EMP-123456 [masked:custom]");
      delete process.env.MASK_PATTERNS;
      expect(maskText("EMP-123456")).toBe("EMP-123456");
      process.env.MASK_PATTERNS = '["bad(["]';
      expect(() => operatorMaskPatterns()).toThrow(/MASK_PATTERNS\[0\].*bad\(\[/);
    } finally {
      if (before === undefined) delete process.env.MASK_PATTERNS;
      else process.env.MASK_PATTERNS = before;
    }
  });

  it("rejects invalid MASK_PATTERNS, naming the bad pattern", () => {
    expect(() => patternsFromEnv({ MASK_PATTERNS: '["ok-\\\\d+", "bad(["]' })).toThrow(
      /MASK_PATTERNS\[1\].*bad\(\[/,
    );
    expect(() => patternsFromEnv({ MASK_PATTERNS: '["x", 42]' })).toThrow(/MASK_PATTERNS\[1\].*42/);
    expect(() => patternsFromEnv({ MASK_PATTERNS: '["a*"]' })).toThrow(/empty string.*a\*/);
    expect(() => patternsFromEnv({ MASK_PATTERNS: "EMP-\\d+" })).toThrow(/JSON array/);
    expect(() => patternsFromEnv({ MASK_PATTERNS: '{"a":"b"}' })).toThrow(/JSON array/);
  });
});

describe("performance", () => {
  // About 200 KB of audit-like JSON: chat messages, tool calls, usage, a few secrets.
  function auditPayload(): Record<string, unknown> {
    const prose =
      "The agent summarised the quarterly report, compared revenue against the forecast for 2024-01-15 " +
      "and opened ticket 550e8400-e29b-41d4-a716-446655440000 at commit 3f786850e387550fdab836ed7e6dc881de23001b. ";
    const messages = Array.from({ length: 400 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: prose.repeat(2) + (i % 50 === 0 ? ` key ${openaiKey} card 4111 1111 1111 1111` : ""),
      toolCall: {
        name: "http_request",
        arguments: JSON.stringify({ url: `https://api.example.com/items/${i}` }),
      },
      usage: { inputTokens: 1000 + i, outputTokens: 200, cachedInputTokens: 0 },
    }));
    return { model: "gpt-4o", messages, headers: { authorization: "Bearer x" } };
  }

  it("masks a 200 KB JSON payload in well under 200 ms", () => {
    const payload = auditPayload();
    const json = JSON.stringify(payload);
    expect(json.length).toBeGreaterThan(200_000);
    maskSecrets(payload); // warm up the regex compiler

    const start = performance.now();
    const masked = maskSecrets(payload);
    const maskedText = maskText(json);
    const elapsed = performance.now() - start;

    expect(JSON.stringify(masked)).not.toContain(openaiKey);
    expect(maskedText).not.toContain(openaiKey);
    expect(elapsed).toBeLessThan(500);
  });
});

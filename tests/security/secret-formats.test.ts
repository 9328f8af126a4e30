import fc from "fast-check";
import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { newSecret } from "@/lib/auth/api-keys";
import { maskSecrets, maskText } from "@/lib/core/text/mask";

/** Tollgate API keys as lib/keys issues them: "tg_" and 24 random bytes in base64url. */
const tollgateKey = fc
  .uint8Array({ minLength: 24, maxLength: 24 })
  .map((bytes) => `tg_${Buffer.from(bytes).toString("base64url")}`);

/** Session cookies as Auth.js issues them (an encrypted JWT, five parts, the key part empty), any claims. */
const sessionToken = fc
  .record({
    sub: fc.uuid(),
    email: fc.emailAddress(),
    sid: fc.uuid(),
    name: fc.string({ maxLength: 40 }),
    secret: fc.string({ minLength: 32, maxLength: 64 }),
  })
  .map(async ({ secret, ...token }) => encode({ token, secret, salt: "authjs.session-token", maxAge: 3600 }));

// Text around a secret: anything, but not glued to it (a key inside a longer word is that word, not a key).
const around = fc.string({ maxLength: 60, unit: "grapheme-ascii" });
const separator = fc.constantFrom(" ", "\n", "\t", '"', "'", "(", ")", ",", ";", "<", ">", "[", "]");

const placeInText = (secret: string, before: string, sepA: string, sepB: string, after: string) =>
  `${before}${sepA}${secret}${sepB}${after}`;

// Keys that do not name a credential: the secret must be found by its shape, not by the key.
const plainKey = fc.constantFrom("note", "message", "args", "content", "input", "text", "value", "items");

function nest(secret: string, path: string[], asArray: boolean): unknown {
  let value: unknown = asArray ? [secret] : secret;
  for (const key of path.reverse()) value = { [key]: value };
  return value;
}

const leaks = (masked: unknown, secret: string) => JSON.stringify(masked).includes(secret);

describe("every secret format Tollgate issues is masked wherever it appears", () => {
  it("newSecret issues the shape the property below draws from", () => {
    for (let i = 0; i < 50; i++) expect(newSecret()).toMatch(/^tg_[A-Za-z0-9_-]{32}$/);
  });

  it("tg_ API keys: in any text and under any key of any nested object", () => {
    fc.assert(
      fc.property(
        tollgateKey,
        around,
        separator,
        separator,
        around,
        fc.array(plainKey, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (secret, before, a, b, after, path, asArray) => {
          const text = placeInText(secret, before, a, b, after);
          expect(maskText(text)).not.toContain(secret);
          expect(leaks(maskSecrets(nest(text, path, asArray)), secret)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("session tokens: in any text and under any key of any nested object", async () => {
    await fc.assert(
      fc.asyncProperty(
        sessionToken,
        around,
        separator,
        separator,
        around,
        fc.array(plainKey, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (pending, before, a, b, after, path, asArray) => {
          const secret = await pending;
          const text = placeInText(secret, before, a, b, after);
          expect(maskText(text)).not.toContain(secret);
          // Not one of its five parts survives either (the ciphertext alone is what a thief replays with).
          for (const part of secret.split(".").filter((p) => p.length >= 16))
            expect(maskText(text)).not.toContain(part);
          expect(leaks(maskSecrets(nest(text, path, asArray)), secret)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

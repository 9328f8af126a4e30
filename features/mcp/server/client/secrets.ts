import "server-only";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const KEY_HELP = "32 bytes, as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)";

/**
 * Seals MCP header values with AES-256-GCM under the operator's key (`MCP_SECRET_KEY`). Each value is bound to
 * where it belongs (tenant, server, header name) as associated data, so a sealed value copied into another row
 * does not open there.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The key from its text (64 hex digits or base64 of 32 bytes); anything else fails, naming the variable. */
  static fromKeyText(text: string, variable = "MCP_SECRET_KEY"): SecretBox {
    const trimmed = text.trim();
    const key = /^[0-9a-f]{64}$/i.test(trimmed)
      ? Buffer.from(trimmed, "hex")
      : Buffer.from(trimmed, "base64");
    if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(trimmed) && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)))
      throw new Error(`${variable} must be ${KEY_HELP}`);
    return new SecretBox(key);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, iv, body, cipher.getAuthTag()].map(part).join(".");
  }

  /** The plaintext; throws when the value was sealed under another key or for another place. */
  open(sealed: string, context: string): string {
    const [version, iv, body, tag] = sealed.split(".");
    if (version !== VERSION || iv === undefined || body === undefined || tag === undefined)
      throw new Error("not a sealed value");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    try {
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      throw new Error("the sealed value does not open with MCP_SECRET_KEY (was the key changed?)");
    }
  }
}

const part = (value: string | Buffer) => (typeof value === "string" ? value : value.toString("base64url"));

/** The box of `MCP_SECRET_KEY`, or null when it is not set (registering headers is then refused). */
export function secretBoxFromEnv(env: Record<string, string | undefined>): SecretBox | null {
  const text = env.MCP_SECRET_KEY;
  return text?.trim() ? SecretBox.fromKeyText(text) : null;
}

/** Where a header value belongs: a sealed value opens only for the same tenant, server and header name. */
export const headerContext = (tenantId: string, serverId: string, header: string) =>
  `mcp-header:${tenantId}:${serverId}:${header.toLowerCase()}`;

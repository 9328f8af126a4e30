import "server-only";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

let cached: string | undefined;

/**
 * AUTH_SECRET signs session cookies. When it is not set (the one-line quick start), a random one is made once
 * and kept in .data/auth-secret, so sessions survive a restart; production sets AUTH_SECRET explicitly.
 */
export function getAuthSecret(): string {
  if (cached) return cached;
  const fromEnv = process.env.AUTH_SECRET?.trim();
  if (fromEnv) {
    cached = fromEnv;
    return cached;
  }
  const file = path.join(process.cwd(), ".data", "auth-secret");
  try {
    cached = readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(path.dirname(file), { recursive: true });
    cached = randomBytes(32).toString("base64url");
    writeFileSync(file, cached, { mode: 0o600, flag: "wx" });
  }
  return cached;
}

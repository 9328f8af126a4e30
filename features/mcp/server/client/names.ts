import { createHash } from "node:crypto";

const TOOL_NAME_MAX = 64;
const SEPARATOR = "__";

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);

/**
 * The names the model sees for a server's tools (`server__tool`), by MCP tool name, in the server's order.
 * Characters providers refuse become `_`; a name past 64 characters is cut and marked with a hash of the
 * original; two tools that would end up with one name are told apart the same way.
 */
export function exposedToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const tool of tools) {
    const cleaned = tool.replace(/[^A-Za-z0-9_-]/g, "_");
    let name = `${server}${SEPARATOR}${cleaned}`;
    if (name.length > TOOL_NAME_MAX || taken.has(name)) {
      const room = TOOL_NAME_MAX - server.length - SEPARATOR.length - 9;
      name = `${server}${SEPARATOR}${cleaned.slice(0, room)}_${shortHash(tool)}`;
    }
    taken.add(name);
    names.set(tool, name);
  }
  return names;
}

/** Words of a tool's name and title that make the offline demo model pick it ("create_ticket" → create, ticket). */
export function toolKeywords(name: string, title?: string): string[] {
  const words = `${name} ${title ?? ""}`
    .split(/[^A-Za-z0-9]+|(?=[A-Z][a-z])/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 2);
  return [...new Set(words)];
}

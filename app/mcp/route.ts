import { container } from "@/server/container";

/**
 * Tollgate as an MCP server (Streamable HTTP, stateless, JSON responses) for outside agents with a tenant API key:
 * features/mcp/server/endpoint. Not behind proxy.ts (a key, never a cookie, authorises it); GET and DELETE answer 405.
 */
export const POST = (req: Request) => container().mcpServer(req);
export const GET = (req: Request) => container().mcpServer(req);
export const DELETE = (req: Request) => container().mcpServer(req);

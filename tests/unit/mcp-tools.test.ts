// The pure parts of the MCP client: tools defined from raw JSON Schema, the names the model sees, result
// mapping, and header sealing.
import { describe, expect, it, vi } from "vitest";
import { exposedToolNames, toolKeywords } from "@/features/mcp/server/client/names";
import { contentText, McpToolError, toolValue } from "@/features/mcp/server/client/results";
import { headerContext, SecretBox, secretBoxFromEnv } from "@/features/mcp/server/client/secrets";
import { defineJsonTool, parseToolArgs } from "@/lib/agent/tool";
import { pickTool } from "@/lib/gateway/adapters/offline";

const ticketSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    title: { type: "string", minLength: 1 },
    customer: {
      type: "object",
      properties: { name: { type: "string" }, tier: { type: "string", enum: ["free", "pro"] } },
      required: ["name"],
      additionalProperties: false,
    },
    items: { type: "array", items: { type: "object", properties: { qty: { type: "integer", minimum: 1 } } } },
  },
  required: ["title", "customer"],
};

const jsonTool = (inputSchema: Record<string, unknown>, name = "crm__create_ticket") =>
  defineJsonTool({ name, description: "Create a ticket", inputSchema, execute: async (args) => args });

describe("tools defined from a JSON Schema", () => {
  it("offers the schema as given (without $schema) and checks arguments against it, naming each field", () => {
    const tool = jsonTool(ticketSchema);
    expect(tool.schema.parameters).toEqual({ ...ticketSchema, $schema: undefined, type: "object" });
    expect(tool.schema.parameters).not.toHaveProperty("$schema");
    expect(parseToolArgs(tool, { title: "x", customer: { name: "Ada" }, items: [{ qty: 2 }] })).toEqual({
      ok: true,
      value: { title: "x", customer: { name: "Ada" }, items: [{ qty: 2 }] },
    });
    const bad = parseToolArgs(tool, {
      title: "",
      customer: { tier: "gold", vip: true },
      items: [{ qty: 0 }],
    });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toBe(
      'invalid arguments for crm__create_ticket: title: must NOT have fewer than 1 characters; customer.name: required; customer.vip: not a known field; customer.tier: must be one of "free", "pro"; items.0.qty: must be >= 1',
    );
    expect(parseToolArgs(tool, "not an object")).toMatchObject({ ok: false });
  });

  it("reads draft-07 schemas, survives a repeated $id, and leaves patterns to the server", () => {
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: "https://example.com/ticket",
      type: "object",
      properties: {
        tags: { type: "array", items: [{ type: "string" }] },
        code: { type: "string", pattern: "^(a+)+$" },
      },
      required: ["tags"],
    };
    for (let i = 0; i < 2; i++) {
      const tool = jsonTool(draft7);
      expect(parseToolArgs(tool, { tags: [1] })).toMatchObject({ ok: false });
      expect(parseToolArgs(tool, { tags: ["a"], code: "aaaaaaaaaaaaaaaaaaaaaaaaaaaa!" })).toMatchObject({
        ok: true,
      });
    }
  });

  it("only requires an object when the schema cannot be compiled", () => {
    const tool = jsonTool({ type: "object", properties: { a: { $ref: "#/nowhere" } } });
    expect(parseToolArgs(tool, { a: 1 })).toMatchObject({ ok: true });
    expect(parseToolArgs(tool, [1])).toMatchObject({ ok: false });
  });
});

describe("the names the model sees", () => {
  it("prefixes the server, replaces characters providers refuse, and tells clashes and long names apart", () => {
    const long = `x${"y".repeat(80)}`;
    const names = exposedToolNames("crm", ["create_ticket", "docs.search", "docs_search", long]);
    expect(names.get("create_ticket")).toBe("crm__create_ticket");
    expect(names.get("docs.search")).toBe("crm__docs_search");
    expect(names.get("docs_search")).toMatch(/^crm__docs_search_[0-9a-f]{8}$/);
    expect(names.get(long)!.length).toBe(64);
    for (const name of names.values()) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // Stable: the same list gives the same names.
    expect(exposedToolNames("crm", ["create_ticket", "docs.search", "docs_search", long])).toEqual(names);
  });

  it("gives the offline model words to pick a tool by", () => {
    expect(toolKeywords("createTicket", "Open a support ticket")).toEqual([
      "create",
      "ticket",
      "open",
      "support",
    ]);
    const tools = [
      {
        name: "crm__create_ticket",
        description: "",
        parameters: {},
        keywords: toolKeywords("create_ticket"),
      },
      { name: "crm__echo", description: "", parameters: {}, keywords: toolKeywords("echo") },
    ];
    expect(pickTool("please create a ticket", tools)?.name).toBe("crm__create_ticket");
  });
});

describe("MCP results for the model", () => {
  it("joins text, describes other content, keeps structured content, throws error results", () => {
    expect(
      contentText([
        { type: "text", text: "a" },
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "resource", resource: { uri: "file:///x", text: "inside" } },
        { type: "resource_link", uri: "file:///y", name: "y" },
      ]),
    ).toBe("a\n[image image/png, 3 bytes]\ninside\n[resource link file:///y (y)]");
    expect(toolValue({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } })).toEqual({
      a: 1,
    });
    expect(toolValue({ content: [{ type: "text", text: "made" }], structuredContent: { a: 1 } })).toEqual({
      text: "made",
      structuredContent: { a: 1 },
    });
    expect(toolValue({ toolResult: { legacy: true } })).toEqual({ legacy: true });
    expect(() => toolValue({ content: [], isError: true })).toThrow(McpToolError);
  });
});

describe("sealed header values", () => {
  const box = SecretBox.fromKeyText(Buffer.alloc(32, 1).toString("hex"));

  it("opens only where it was sealed, and never holds the plaintext", () => {
    const here = headerContext("t1", "s1", "Authorization");
    const sealed = box.seal("Bearer sk-abc", here);
    expect(sealed).not.toContain("sk-abc");
    expect(box.open(sealed, headerContext("t1", "s1", "authorization"))).toBe("Bearer sk-abc");
    expect(() => box.open(sealed, headerContext("t2", "s1", "Authorization"))).toThrow(/does not open/);
    expect(() => SecretBox.fromKeyText(Buffer.alloc(32, 2).toString("base64")).open(sealed, here)).toThrow();
    expect(box.seal("same", here)).not.toBe(box.seal("same", here));
  });

  it("takes the key as 64 hex digits or base64 of 32 bytes, and refuses anything else by name", () => {
    expect(secretBoxFromEnv({})).toBeNull();
    expect(secretBoxFromEnv({ MCP_SECRET_KEY: Buffer.alloc(32, 3).toString("base64") })).toBeInstanceOf(
      SecretBox,
    );
    expect(() => secretBoxFromEnv({ MCP_SECRET_KEY: "short" })).toThrow(/MCP_SECRET_KEY must be 32 bytes/);
    expect(() => secretBoxFromEnv({ MCP_SECRET_KEY: Buffer.alloc(16).toString("base64") })).toThrow(
      /32 bytes/,
    );
  });
});

describe("McpFailure across copies of its module", () => {
  it("is recognised by a route's copy when the container's copy threw it", async () => {
    const first = await import("@/features/mcp/server/client/errors");
    vi.resetModules();
    const second = await import("@/features/mcp/server/client/errors");
    expect(second.McpFailure).not.toBe(first.McpFailure);
    const thrown = new first.McpFailure("connect", "refused: 127.0.0.1 is a loopback address", true);
    expect(thrown instanceof second.McpFailure).toBe(true);
    expect(new Error("plain") instanceof second.McpFailure).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, parseToolArgs } from "@/lib/agent/tool";

type SchemaNode = {
  type?: string;
  required?: string[];
  description?: string;
  enum?: string[];
  minItems?: number;
  $schema?: string;
  properties: Record<string, SchemaNode>;
  items: SchemaNode;
};

describe("tool JSON schemas from zod", () => {
  it("expands nested objects, arrays, enums, optional fields and descriptions", () => {
    const tool = defineTool({
      name: "create_shipment",
      description: "Ship",
      parameters: z.object({
        orderId: z.string().describe("The order"),
        priority: z.enum(["low", "high"]).optional(),
        address: z.object({ city: z.string(), lines: z.array(z.string()).min(1) }),
        items: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })),
      }),
      execute: async () => null,
    });
    const s = tool.schema.parameters as unknown as SchemaNode;
    expect(s.type).toBe("object");
    expect(s.required).toEqual(["orderId", "address", "items"]);
    expect(s.properties.orderId!.description).toBe("The order");
    expect(s.properties.priority!.enum).toEqual(["low", "high"]);
    expect(s.properties.address!.properties.lines).toMatchObject({
      type: "array",
      items: { type: "string" },
      minItems: 1,
    });
    expect(s.properties.items!.items.required).toEqual(["sku", "qty"]);
    expect(s.$schema).toBeUndefined();
  });

  it("cuts a recursive type with a reference instead of recursing forever", () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const tool = defineTool({
      name: "tree",
      description: "Tree",
      parameters: z.object({ root: node }),
      execute: async () => null,
    });
    const text = JSON.stringify(tool.schema.parameters);
    expect(text.length).toBeLessThan(2000);
    expect(text).toContain("$ref");
  });

  it("rejects names providers would refuse", () => {
    expect(() =>
      defineTool({
        name: "has space",
        description: "x",
        parameters: z.object({}),
        execute: async () => null,
      }),
    ).toThrow(/letters, digits/);
  });

  it("validates arguments and names every wrong field", () => {
    const tool = defineTool({
      name: "t",
      description: "x",
      parameters: z.object({ a: z.string(), n: z.object({ b: z.number() }) }),
      execute: async () => null,
    });
    const bad = parseToolArgs(tool, { a: 1, n: { b: "x" } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/a: .*; n\.b: /);
    expect(parseToolArgs(tool, { a: "x", n: { b: 1 } })).toEqual({
      ok: true,
      value: { a: "x", n: { b: 1 } },
    });
  });
});

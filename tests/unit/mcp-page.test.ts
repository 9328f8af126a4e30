import { describe, expect, it } from "vitest";
import {
  exampleArgs,
  headersOf,
  healthOf,
  parseArgs,
  prettyJson,
  roleAllowed,
  rolesWith,
  secondsToMs,
} from "@/features/mcp/page-view";

describe("the MCP page's test call", () => {
  it("starts from the tool's required fields, nested ones too, with defaults, examples and enums", () => {
    expect(
      exampleArgs({
        type: "object",
        properties: {
          title: { type: "string" },
          priority: { type: "string", enum: ["low", "high"] },
          count: { type: "integer", minimum: 1 },
          urgent: { type: "boolean" },
          tags: { type: "array", items: { type: "string" } },
          customer: {
            type: "object",
            properties: { id: { type: "string", examples: ["C-1"] }, note: { type: "string" } },
            required: ["id"],
          },
          limit: { type: "number", default: 10 },
          optional: { type: "string" },
        },
        required: ["title", "priority", "count", "urgent", "tags", "customer", "limit"],
      }),
    ).toEqual({
      title: "",
      priority: "low",
      count: 1,
      urgent: false,
      tags: [],
      customer: { id: "C-1" },
      limit: 10,
    });
  });

  it("reads nullable and union types, and survives schemas that are not objects or recurse", () => {
    expect(
      exampleArgs({
        type: "object",
        properties: {
          a: { type: ["null", "string"] },
          b: { anyOf: [{ type: "null" }, { type: "number" }] },
          c: { allOf: [{ type: "boolean" }] },
        },
        required: ["a", "b", "c"],
      }),
    ).toEqual({ a: "", b: 0, c: false });
    expect(exampleArgs(undefined)).toEqual({});
    expect(exampleArgs({ type: "string" })).toEqual({});
    const node: Record<string, unknown> = { type: "object", required: ["child"] };
    node.properties = { child: node };
    expect(JSON.stringify(exampleArgs(node))).toContain('"child"');
  });

  it("takes a JSON object and says what is wrong with anything else", () => {
    expect(parseArgs('{"text": "hi"}')).toEqual({ ok: true, value: { text: "hi" } });
    expect(parseArgs("  ")).toEqual({ ok: false, error: { kind: "empty" } });
    expect(parseArgs("[1]")).toEqual({ ok: false, error: { kind: "notObject" } });
    expect(parseArgs("null")).toEqual({ ok: false, error: { kind: "notObject" } });
    const bad = parseArgs('{"text": }');
    expect(bad.ok === false && bad.error.kind).toBe("syntax");
  });

  it("shows a JSON result pretty and any other text as it is", () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("plain words")).toBe("plain words");
  });
});

describe("a tool's roles", () => {
  it("every role is null (so a role added later is in too), and the last role cannot be taken away", () => {
    expect(roleAllowed(null, "member")).toBe(true);
    expect(roleAllowed(["admin"], "member")).toBe(false);
    expect(rolesWith(null, "member", false)).toEqual(["admin"]);
    expect(rolesWith(["admin"], "member", true)).toBeNull();
    expect(rolesWith(["admin"], "admin", false)).toEqual(["admin"]);
  });
});

describe("registering a server", () => {
  it("sends named headers, ignores blank rows, and names each row's problem", () => {
    const { headers, problems } = headersOf([
      { key: "a", name: " Authorization ", value: "Bearer x" },
      { key: "b", name: "", value: "" },
      { key: "c", name: "", value: "orphan" },
      { key: "d", name: "X-Team", value: "" },
      { key: "e", name: "authorization", value: "again" },
    ]);
    expect(headers).toEqual({ Authorization: "Bearer x" });
    expect([...problems]).toEqual([
      [2, "noName"],
      [3, "noValue"],
      [4, "duplicate"],
    ]);
  });

  it("takes the timeout in seconds and sends milliseconds", () => {
    expect(secondsToMs("30")).toBe(30_000);
    expect(secondsToMs("1.5")).toBe(1_500);
    expect(secondsToMs("")).toBeNull();
    expect(secondsToMs("soon")).toBeNull();
  });

  it("labels a server by its last check", () => {
    expect(healthOf({ reachable: null })).toBe("unchecked");
    expect(healthOf({ reachable: true })).toBe("reachable");
    expect(healthOf({ reachable: false })).toBe("unreachable");
  });
});

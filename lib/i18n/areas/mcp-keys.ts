/** Messages of the keys page's MCP parts: a key's allowed tools, and how to point an MCP client at /mcp. */
export const en = {
  "mcpKeys.column": "MCP tools",
  "mcpKeys.all": "all",
  "mcpKeys.noneAllowed": "none",
  "mcpKeys.count": "{count} tools",
  "mcpKeys.edit": "MCP tools",
  "mcpKeys.editOf": "Edit the MCP tools of “{name}”",
  "mcpKeys.title": "Tools “{name}” may call over /mcp",
  "mcpKeys.lead":
    "An outside agent using this key at /mcp sees the tenant's tools a member may use. Limit it to some of them here; the model API (/v1) is not affected.",
  "mcpKeys.every": "Every tool the tenant offers over MCP",
  "mcpKeys.only": "Only these tools",
  "mcpKeys.names": "Tool names",
  "mcpKeys.namesHint":
    "Separated by commas or spaces, as the tool catalog names them (a tenant server's tools: server__tool). Empty: none.",
  "mcpKeys.namesPlaceholder": "e.g. query_orders, current_time",
  "mcpKeys.createLabel": "MCP tools (optional)",
  "mcpKeys.createHint": "Leave empty for every tool; you can change it later.",
  "mcpKeys.save": "Save",
  "mcpKeys.saving": "Saving…",
  "mcpKeys.close": "Close",
  "mcpKeys.howTitle": "Use the tenant's tools from an MCP client",
  "mcpKeys.howLead":
    "Claude Desktop, IDEs and other agents connect to /mcp (Streamable HTTP) with a key as a Bearer token. Every call is in the usage ledger (source MCP).",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "mcpKeys.column": "MCP 工具",
  "mcpKeys.all": "全部",
  "mcpKeys.noneAllowed": "无",
  "mcpKeys.count": "{count} 个工具",
  "mcpKeys.edit": "MCP 工具",
  "mcpKeys.editOf": "编辑“{name}”的 MCP 工具",
  "mcpKeys.title": "“{name}”可通过 /mcp 调用的工具",
  "mcpKeys.lead":
    "外部智能体用此密钥访问 /mcp 时，可看到成员可用的租户工具。可在此将其限制为其中一部分；模型 API（/v1）不受影响。",
  "mcpKeys.every": "租户通过 MCP 提供的全部工具",
  "mcpKeys.only": "仅限以下工具",
  "mcpKeys.names": "工具名称",
  "mcpKeys.namesHint":
    "用逗号或空格分隔，名称与工具目录一致（租户服务器的工具为 server__tool）。留空表示不允许任何工具。",
  "mcpKeys.namesPlaceholder": "例如 query_orders, current_time",
  "mcpKeys.createLabel": "MCP 工具（可选）",
  "mcpKeys.createHint": "留空表示全部工具；之后可以修改。",
  "mcpKeys.save": "保存",
  "mcpKeys.saving": "保存中…",
  "mcpKeys.close": "关闭",
  "mcpKeys.howTitle": "在 MCP 客户端中使用租户的工具",
  "mcpKeys.howLead":
    "Claude Desktop、IDE 和其他智能体以 Streamable HTTP 连接 /mcp，并以密钥作为 Bearer 令牌。每次调用都记入用量台账（来源 MCP）。",
};

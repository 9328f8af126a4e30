/** Messages of the home page. */
export const en = {
  "home.title": "Every model call, governed.",
  "home.lead":
    "Tollgate puts one gateway between your people, your apps and the model providers. Every turn is routed with fallback, metered into a usage ledger, and written to an ordered, masked audit trail.",
  "home.point.gateway": "One gateway for every provider, with routing, retries and fallback.",
  "home.point.ledger": "A usage ledger row for every turn: tokens, cost, latency and who really answered.",
  "home.point.audit": "An audit trail you can replay, with secrets masked before they are stored.",
  "home.point.budget": "Budgets and limits per tenant and per key that hold under concurrency.",
  "home.activeTenant": "Active tenant: {tenant} (your role: {role})",
  "home.platform": "You are viewing the whole platform as the super admin.",
  "home.noTenant": "You are not a member of any tenant yet.",
  "home.adminPages": "Admin pages",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "home.title": "每一次模型调用，都在治理之下。",
  "home.lead":
    "Tollgate 在你的团队、应用与模型供应商之间架起统一网关。每一轮对话都经过路由与回退，计入用量台账，并写入有序、已脱敏的审计记录。",
  "home.point.gateway": "一个网关对接所有供应商：路由、重试与回退。",
  "home.point.ledger": "每轮对话一行台账：令牌、成本、延迟，以及实际应答的模型。",
  "home.point.audit": "可回放的审计记录，密钥在存储前即已脱敏。",
  "home.point.budget": "按租户、按密钥的预算与限额，并发下依然可靠。",
  "home.activeTenant": "当前租户：{tenant}（你的角色：{role}）",
  "home.platform": "你正以超级管理员身份查看整个平台。",
  "home.noTenant": "你还不是任何租户的成员。",
  "home.adminPages": "管理页面",
};

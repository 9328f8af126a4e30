export const en = {
  "app.name": "Tollgate",
  "app.tagline": "Governance for AI agents",
  "nav.home": "Home",
  "nav.turns": "Usage ledger",
  "nav.audit": "Audit replay",
  "nav.cost": "Cost dashboard",
  "nav.admin": "Admin",
  "tenant.label": "Tenant",
  "tenant.all": "All tenants",
  "tenant.switchFailed": "Could not switch tenant.",
  "role.member": "member",
  "role.admin": "admin",
  "role.super": "super admin",
  "user.menu": "Account",
  "user.signOut": "Sign out",
  "user.signedInAs": "Signed in as {email}",
  "theme.toggle": "Toggle dark mode",
  "theme.light": "Light",
  "theme.dark": "Dark",
  "lang.label": "Language",
  "login.title": "Sign in to Tollgate",
  "login.email": "Email",
  "login.password": "Password",
  "login.submit": "Sign in",
  "login.submitting": "Signing in…",
  "login.wrong": "Wrong email or password.",
  "login.throttled": "Too many failed attempts. Wait a few minutes and try again.",
  "login.invalid": "Enter an email address and a password.",
  "login.failed": "Sign-in failed. Try again.",
  "login.demoHint": "Demo accounts use the password tollgate-demo (see the README).",
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
  "page.turns.title": "Usage ledger",
  "page.turns.lead": "Every turn: status, model, tokens, cost and latency.",
  "page.audit.title": "Audit replay",
  "page.audit.lead": "The ordered, masked events of a turn.",
  "page.cost.title": "Cost dashboard",
  "page.cost.lead": "Spend by day, model and user.",
  "page.comingSoon": "This page is guarded and ready; its data arrives with the governance store.",
  "page.scope.tenant": "Scope: {tenant}",
  "page.scope.platform": "Scope: every tenant",
  "forbidden.title": "403: not allowed",
  "forbidden.body": "Your role in this tenant does not give access to this page.",
  "notFound.title": "404: not found",
  "notFound.body": "There is nothing here.",
  "common.back": "Back to home",
} as const;

export type MessageKey = keyof typeof en;

export const zh: Record<MessageKey, string> = {
  "app.name": "Tollgate",
  "app.tagline": "AI 智能体治理平台",
  "nav.home": "首页",
  "nav.turns": "用量台账",
  "nav.audit": "审计回放",
  "nav.cost": "成本看板",
  "nav.admin": "管理",
  "tenant.label": "租户",
  "tenant.all": "全部租户",
  "tenant.switchFailed": "切换租户失败。",
  "role.member": "成员",
  "role.admin": "管理员",
  "role.super": "超级管理员",
  "user.menu": "账户",
  "user.signOut": "退出登录",
  "user.signedInAs": "当前登录：{email}",
  "theme.toggle": "切换深色模式",
  "theme.light": "浅色",
  "theme.dark": "深色",
  "lang.label": "语言",
  "login.title": "登录 Tollgate",
  "login.email": "邮箱",
  "login.password": "密码",
  "login.submit": "登录",
  "login.submitting": "正在登录…",
  "login.wrong": "邮箱或密码错误。",
  "login.throttled": "失败次数过多，请几分钟后再试。",
  "login.invalid": "请输入邮箱和密码。",
  "login.failed": "登录失败，请重试。",
  "login.demoHint": "演示账户的密码均为 tollgate-demo（见 README）。",
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
  "page.turns.title": "用量台账",
  "page.turns.lead": "每一轮：状态、模型、令牌、成本与延迟。",
  "page.audit.title": "审计回放",
  "page.audit.lead": "一轮对话中有序、已脱敏的事件。",
  "page.cost.title": "成本看板",
  "page.cost.lead": "按日期、模型与用户统计的花费。",
  "page.comingSoon": "此页面已受权限保护；数据将随治理存储一同上线。",
  "page.scope.tenant": "范围：{tenant}",
  "page.scope.platform": "范围：全部租户",
  "forbidden.title": "403：无权访问",
  "forbidden.body": "你在该租户中的角色无权访问此页面。",
  "notFound.title": "404：未找到",
  "notFound.body": "这里什么都没有。",
  "common.back": "返回首页",
};

export const LOCALES = ["en", "zh"] as const;
export type Locale = (typeof LOCALES)[number];
export const MESSAGES: Record<Locale, Record<MessageKey, string>> = { en, zh };

export type Translate = (key: MessageKey, vars?: Record<string, string>) => string;

export function translator(locale: Locale): Translate {
  const dict = MESSAGES[locale];
  return (key, vars) => {
    const text = dict[key] ?? en[key];
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m) : text;
  };
}

export const LOCALE_COOKIE = "tollgate-locale";
export const THEME_COOKIE = "tollgate-theme";

export function pickLocale(cookieValue: string | undefined, acceptLanguage: string | null): Locale {
  if (cookieValue === "en" || cookieValue === "zh") return cookieValue;
  return acceptLanguage?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

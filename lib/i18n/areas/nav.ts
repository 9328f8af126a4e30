/**
 * Messages of the navigation: the top bar's menus and links, and the pages' titles (English is the source;
 * Chinese must have every key).
 */
export const en = {
  "nav.home": "Home",
  "nav.turns": "Usage ledger",
  "nav.audit": "Audit replay",
  "nav.cost": "Cost dashboard",
  "nav.tools": "Tool catalog",
  "nav.routing": "Routing",
  "nav.keys": "Keys",
  "nav.limits": "Limits",
  "nav.admin": "Admin",
  "nav.members": "Members",
  "nav.changes": "Admin changes",
  "nav.tenants": "Tenants",
  "nav.usage": "Usage",
  "nav.main": "Main",
  "nav.menu": "Menu",
  "nav.openMenu": "Open the menu",
  "nav.closeMenu": "Close the menu",
  "nav.currentSection": "(current section)",
  "nav.title.login": "Sign in",
  "nav.title.invite": "Invitation",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "nav.home": "首页",
  "nav.turns": "用量台账",
  "nav.audit": "审计回放",
  "nav.cost": "成本看板",
  "nav.tools": "工具目录",
  "nav.routing": "路由",
  "nav.keys": "密钥",
  "nav.limits": "限额",
  "nav.admin": "管理",
  "nav.members": "成员",
  "nav.changes": "管理变更",
  "nav.tenants": "租户",
  "nav.usage": "用量",
  "nav.main": "主导航",
  "nav.menu": "菜单",
  "nav.openMenu": "打开菜单",
  "nav.closeMenu": "关闭菜单",
  "nav.currentSection": "（当前栏目）",
  "nav.title.login": "登录",
  "nav.title.invite": "邀请",
} as const;

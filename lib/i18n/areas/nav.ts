/** Messages of the nav area (English is the source; Chinese must have every key). */
export const en = {
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
  "nav.usage": "用量",
  "nav.main": "主导航",
  "nav.menu": "菜单",
  "nav.openMenu": "打开菜单",
  "nav.closeMenu": "关闭菜单",
  "nav.currentSection": "（当前栏目）",
  "nav.title.login": "登录",
  "nav.title.invite": "邀请",
} as const;

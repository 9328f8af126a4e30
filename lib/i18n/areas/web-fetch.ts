/** Messages of the tenant's web_fetch setting (on the members page, beside single sign-on). */
export const en = {
  "webFetch.title": "Web fetching",
  "webFetch.lead":
    "Whether the assistant's web_fetch tool may read web pages for this organisation, and where. A fetched URL reaches its site, query string included.",
  "webFetch.mode": "web_fetch",
  "webFetch.mode.off": "Off: the tool is not offered",
  "webFetch.mode.allowlist": "Only the domains listed below (and their subdomains)",
  "webFetch.mode.any": "Any public address",
  "webFetch.domains": "Allowed domains",
  "webFetch.domainsHint": "One per line, such as docs.example.com. Each allows its subdomains too.",
};

export const zh: Record<keyof typeof en, string> = {
  "webFetch.title": "网页获取",
  "webFetch.lead":
    "助手的 web_fetch 工具能否为本组织读取网页，以及可以访问哪些地址。被获取的 URL（含查询字符串）会到达对应网站。",
  "webFetch.mode": "web_fetch",
  "webFetch.mode.off": "关闭：不提供该工具",
  "webFetch.mode.allowlist": "仅限下列域名（及其子域名）",
  "webFetch.mode.any": "任何公网地址",
  "webFetch.domains": "允许的域名",
  "webFetch.domainsHint": "每行一个，例如 docs.example.com。每个域名也允许其子域名。",
};

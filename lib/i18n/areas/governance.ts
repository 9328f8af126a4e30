/** Messages the keys and limits pages share: form words and the tenant they need. */
export const en = {
  "gov.loading": "Loading…",
  "gov.error": "That did not work: {message}",
  "gov.save": "Save",
  "gov.saving": "Saving…",
  "gov.saved": "Saved",
  "gov.cancel": "Cancel",
  "gov.close": "Close",
  "gov.actions": "Actions",
  "gov.editLimits": "Edit limits",
  "gov.chooseTenant": "Choose a tenant in the top bar: API keys, limits and budgets belong to one tenant.",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "gov.loading": "加载中…",
  "gov.error": "操作失败：{message}",
  "gov.save": "保存",
  "gov.saving": "正在保存…",
  "gov.saved": "已保存",
  "gov.cancel": "取消",
  "gov.close": "关闭",
  "gov.actions": "操作",
  "gov.editLimits": "编辑限额",
  "gov.chooseTenant": "请先在顶栏选择一个租户：API 密钥、限额与预算都属于单个租户。",
};

/** Messages of the prompt-version comparison (English is the source; Chinese must have every key). */
export const en = {
  "promptStats.title": "Compare prompt versions",
  "promptStats.lead":
    "What each version of one stored prompt did: calls, failures, cost per call, latency and its feedback and scores, from the usage ledger.",
  "promptStats.prompt": "Prompt",
  "promptStats.days": "Period",
  "promptStats.lastDays": "Last {days} days",
  "promptStats.none": "No stored prompts yet. Create one on the Prompts page.",
  "promptStats.noCalls": "No calls used this prompt in the period.",
  "promptStats.version": "Version",
  "promptStats.calls": "Calls",
  "promptStats.failureRate": "Failure rate",
  "promptStats.costPerCall": "Cost per call",
  "promptStats.cost": "Total cost",
  "promptStats.p50": "p50 latency",
  "promptStats.p95": "p95 latency",
  "promptStats.quality": "Feedback and scores",
  "promptStats.unpriced": "{n} unpriced",
  "promptStats.vsPrevious": "compared with the version before",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "promptStats.title": "比较提示词版本",
  "promptStats.lead":
    "同一个已存储提示词各版本的表现：调用次数、失败、单次成本、延迟及反馈与评分，取自用量台账。",
  "promptStats.prompt": "提示词",
  "promptStats.days": "时间段",
  "promptStats.lastDays": "最近 {days} 天",
  "promptStats.none": "还没有已存储的提示词。请在“提示词”页面创建。",
  "promptStats.noCalls": "该时间段内没有调用使用此提示词。",
  "promptStats.version": "版本",
  "promptStats.calls": "调用",
  "promptStats.failureRate": "失败率",
  "promptStats.costPerCall": "单次成本",
  "promptStats.cost": "总成本",
  "promptStats.p50": "p50 延迟",
  "promptStats.p95": "p95 延迟",
  "promptStats.quality": "反馈与评分",
  "promptStats.unpriced": "{n} 次无价格",
  "promptStats.vsPrevious": "与上一版本相比",
};

/** Messages of the cost dashboard's pricing notes. */
export const en = {
  "cost.pricesAsOf": "Prices as of {asOf} ({source} {version}; {overrides} set in the gateway config)",
  "cost.unpriced": "unpriced",
  "cost.unpricedHint":
    "The model that served this call has no price: its tokens are recorded, its cost is unknown.",
  "cost.assumed": "assumed",
  "cost.assumedHint": "Priced at the price a tenant admin assumed for this model (Limits page).",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "cost.pricesAsOf": "价格截至 {asOf}（{source} {version}；网关配置覆盖 {overrides} 项）",
  "cost.unpriced": "未计价",
  "cost.unpricedHint": "响应此调用的模型没有价格：令牌已记录，成本未知。",
  "cost.assumed": "假定",
  "cost.assumedHint": "按租户管理员为此模型设定的假定价格计价（限额页）。",
};

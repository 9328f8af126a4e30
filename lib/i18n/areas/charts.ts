/** Messages of the charts area (English is the source; Chinese must have every key). */
export const en = {
  "charts.loading": "Loading the chart…",
  "charts.emptyRange": "No data for this time range.",
  "charts.emptyFilters": "No data for these filters.",
  "charts.emptyAll": "No data yet.",
  "charts.showTable": "Show as table",
  "charts.showChart": "Show as chart",
  "charts.col.item": "Item",
  "charts.col.time": "Time (UTC)",
  "charts.col.value": "Value",
  "charts.granularity.hour": "by hour, UTC",
  "charts.granularity.day": "by day, UTC",
  "charts.granularity.week": "by week (from Monday), UTC",
  "charts.weekOf": "Week of {day}",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "charts.loading": "正在加载图表…",
  "charts.emptyRange": "该时间范围内没有数据。",
  "charts.emptyFilters": "没有符合这些筛选条件的数据。",
  "charts.emptyAll": "暂无数据。",
  "charts.showTable": "以表格显示",
  "charts.showChart": "以图表显示",
  "charts.col.item": "项目",
  "charts.col.time": "时间（UTC）",
  "charts.col.value": "数值",
  "charts.granularity.hour": "按小时，UTC",
  "charts.granularity.day": "按天，UTC",
  "charts.granularity.week": "按周（自周一起），UTC",
  "charts.weekOf": "{day} 起的一周",
} as const;

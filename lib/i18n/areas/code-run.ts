/** Messages of the tenant's code sandbox setting (on the members page, beside web fetching). */
export const en = {
  "codeRun.title": "Code sandbox",
  "codeRun.lead":
    "Whether the assistant's code_run tool may run JavaScript for this organisation. The code runs in an isolated WebAssembly sandbox with no network, limited to 64 MB of memory and 5 s (60 s in the background).",
  "codeRun.mode": "code_run",
  "codeRun.mode.off": "Off: the tool is not offered",
  "codeRun.mode.on": "On, without files",
  "codeRun.mode.files": "On, with read-only access to the files each user attached in that conversation",
};

export const zh: Record<keyof typeof en, string> = {
  "codeRun.title": "代码沙箱",
  "codeRun.lead":
    "助手的 code_run 工具能否为本组织运行 JavaScript。代码在隔离的 WebAssembly 沙箱中运行，无网络访问，内存上限 64 MB，时间上限 5 秒（后台运行 60 秒）。",
  "codeRun.mode": "code_run",
  "codeRun.mode.off": "关闭：不提供该工具",
  "codeRun.mode.on": "开启，不含文件",
  "codeRun.mode.files": "开启，并可只读访问每位用户在该对话中附加的文件",
};

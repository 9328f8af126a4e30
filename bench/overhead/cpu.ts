// Accounting from /proc (Linux): the CPU of process groups, of the PostgreSQL server and of the whole machine;
// the memory of a process group.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const clockTick = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time so far (ms) of the processes in the groups `pgids`, and of the local PostgreSQL server's work for database `dbName`. */
export function cpuMs(dbName: string, ...pgids: number[]): { group: number; postgres: number } {
  let group = 0;
  let pg = 0;
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const ticks = Number(f[11]) + Number(f[12]);
        if (pgids.includes(Number(f[2]))) group += ticks;
        if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) === "postgres") {
          // The server's own processes (WAL writer, checkpointer, …) and the backends of this run's database,
          // not another database's backends.
          const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          if (!/\(\d+\)|\[local\]/.test(cmd) || cmd.includes(` ${dbName} `)) pg += ticks;
        }
      } catch {}
    }
  } catch {
    return { group: Number.NaN, postgres: Number.NaN };
  }
  return { group: (group * 1000) / clockTick, postgres: pg ? (pg * 1000) / clockTick : Number.NaN };
}

/**
 * CPU time so far (ms) of every process named `comm` (e.g. "redis-server"), NaN when there is none or /proc
 * cannot be read (another user's process, outside Linux).
 */
export function namedCpuMs(comm: string): number {
  let ticks = 0;
  let found = false;
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== comm) continue;
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        ticks += Number(f[11]) + Number(f[12]);
        found = true;
      } catch {}
    }
  } catch {
    return Number.NaN;
  }
  return found ? (ticks * 1000) / clockTick : Number.NaN;
}

/** The CPU time (ms) the machine has charged to processes so far (user + nice + system). */
export function machineCpuMs(): number {
  try {
    const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return ((v[0]! + v[1]! + v[2]!) * 1000) / clockTick;
  } catch {
    return Number.NaN;
  }
}

/** The resident memory (kB) of the processes in group `pgid`, summed (VmRSS from /proc/<pid>/status). */
export function groupRssKb(pgid: number): number {
  let kb = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const rss = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+)\s+kB/m);
      kb += Number(rss?.[1] ?? 0);
    } catch {}
  }
  return kb;
}

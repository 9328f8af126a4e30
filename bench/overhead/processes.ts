// The benchmark's child processes: each in its own process group, so stopping one stops whatever it forked.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export type Started = { child: ChildProcess; logFile: string };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
export const tail = (file: string) => readFileSync(file, "utf8").split("\n").slice(-30).join("\n");

/** The last line of a log that names an error (a server's own account of a failed call), if any. */
export function lastErrorLine(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => /error/i.test(line))
      .at(-1)
      ?.trim();
  } catch {
    return undefined;
  }
}

export class ChildProcesses {
  /** Logs and scratch files of the run; removed by `stop`. */
  readonly tmp = mkdtempSync(path.join(os.tmpdir(), "tollgate-gateway-overhead-"));
  private readonly children: ChildProcess[] = [];

  /** Starts a process whose output goes to `<tmp>/<name>.log`. */
  start(name: string, cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }): Started {
    const logFile = path.join(this.tmp, `${name}.log`);
    const out = openSync(logFile, "a");
    const child = spawn(cmd, args, { ...opts, detached: true, stdio: ["ignore", out, out] });
    closeSync(out);
    this.children.push(child);
    return { child, logFile };
  }

  /** Runs a process to its end; fails with the end of its log unless it exits 0. */
  async run(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
    const proc = this.start(name, cmd, args, { env });
    const code = await new Promise<number | null>((r) => proc.child.once("exit", r));
    if (code !== 0) throw new Error(`${name} failed (${code}):\n${tail(proc.logFile)}`);
  }

  killAll(signal: NodeJS.Signals): void {
    for (const c of this.children)
      if (c.pid && alive(c))
        try {
          process.kill(-c.pid, signal);
        } catch {}
  }

  /** SIGTERM, up to `graceMs` to exit, then SIGKILL; then the scratch directory goes. */
  async stop(graceMs: number): Promise<void> {
    this.killAll("SIGTERM");
    const deadline = Date.now() + graceMs;
    while (this.children.some(alive) && Date.now() < deadline) await sleep(100);
    this.killAll("SIGKILL");
  }

  /** Stops one of them the same way (SIGTERM to its group, up to `graceMs`, then SIGKILL). */
  async stopOne(proc: Started, graceMs: number): Promise<void> {
    const pid = proc.child.pid;
    if (!pid || !alive(proc.child)) return;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-pid, s);
      } catch {}
    };
    signal("SIGTERM");
    const deadline = Date.now() + graceMs;
    while (alive(proc.child) && Date.now() < deadline) await sleep(100);
    if (alive(proc.child)) signal("SIGKILL");
  }

  removeScratch(): void {
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Waits until `check` answers ok; fails at once if the process dies, with the end of its log. */
export async function waitReady(name: string, proc: Started, check: () => Promise<Response>): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (!alive(proc.child))
      throw new Error(`${name} exited (${proc.child.exitCode}):\n${tail(proc.logFile)}`);
    try {
      if ((await check()).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${name} not ready after 120 s:\n${tail(proc.logFile)}`);
    await sleep(250);
  }
}

import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** What one run may use. The memory and stack limits are QuickJS's; the time limit is enforced twice (below). */
export type SandboxLimits = {
  /** The script's own time, from its first statement (loading QuickJS is not counted). */
  timeMs: number;
  /** QuickJS's heap: every object, string and array the script makes. */
  memoryBytes: number;
  stackBytes: number;
  /** Characters of console output kept (the rest is cut with a marker); the result is cut at the same size. */
  outputChars: number;
};

/** A code_run in the foreground: the turn waits for it. */
export const FOREGROUND_LIMITS: SandboxLimits = {
  timeMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 512 * 1024,
  outputChars: 64 * 1024,
};

/** A background run (a task): longer, with the same memory, stack and output. */
export const BACKGROUND_LIMITS: SandboxLimits = { ...FOREGROUND_LIMITS, timeMs: 60_000 };

/** A file of the conversation as the sandbox sees it (read-only, text only). */
export type SandboxFile = { path: string; name: string; type: string; size: number; text: string | null };

export type SandboxResult = {
  ok: boolean;
  /** The value of the script's last expression (JSON-ish), when it has one. */
  result?: unknown;
  stdout: string;
  error?: string;
  /** Wall time of the run, start-up included. */
  ms: number;
};

export type CodeSandboxOptions = {
  /** Runs at once in this process; more wait their turn (default 4: each holds a thread and up to its memory). */
  maxConcurrent?: number;
  /** The worker script (default: lib/agent/code/sandbox-worker.mjs under the working directory). */
  workerPath?: string;
  /** Time a worker gets to load QuickJS before it is given up (default 10 s). */
  startTimeoutMs?: number;
};

/** Extra time past the limit before the worker is terminated, for QuickJS's own interrupt to report it first. */
const GRACE_MS = 500;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Runs untrusted JavaScript: each run in a fresh worker thread holding QuickJS compiled to WebAssembly, so nothing
 * the script does (an endless loop, a gigabyte allocation) blocks this thread's event loop, and the worker is
 * terminated at the deadline even if QuickJS's own interrupt never fires. One instance per process (the
 * composition root's), so `maxConcurrent` bounds the whole process.
 */
export class CodeSandbox {
  private readonly maxConcurrent: number;
  private readonly workerPath: string;
  private readonly startTimeoutMs: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: CodeSandboxOptions = {}) {
    this.maxConcurrent = options.maxConcurrent ?? 4;
    // Read from the working directory at run time (as the migrations are): bundlers leave it a plain file.
    this.workerPath =
      options.workerPath ?? path.join(process.cwd(), "lib", "agent", "code", "sandbox-worker.mjs");
    this.startTimeoutMs = options.startTimeoutMs ?? 10_000;
  }

  /** Runs `code` under `limits`; `files` (null: none) become the read-only listFiles()/readFile() globals. */
  async run(
    code: string,
    options: { limits: SandboxLimits; files?: SandboxFile[] | null; signal?: AbortSignal },
  ): Promise<SandboxResult> {
    const started = Date.now();
    await this.slot(options.signal);
    try {
      return { ...(await this.runInWorker(code, options)), ms: Date.now() - started };
    } catch (error) {
      return {
        ok: false,
        stdout: "",
        error: error instanceof Error ? error.message : String(error),
        ms: Date.now() - started,
      };
    } finally {
      this.release();
    }
  }

  private runInWorker(
    code: string,
    { limits, files, signal }: { limits: SandboxLimits; files?: SandboxFile[] | null; signal?: AbortSignal },
  ): Promise<Omit<SandboxResult, "ms">> {
    signal?.throwIfAborted();
    const worker = new Worker(this.workerPath, {
      workerData: { code, limits, files: files ?? null },
      // No secrets and no loader flags reach the thread: it needs neither, and the script cannot reach them anyway.
      env: {},
      execArgv: [],
      stdout: true,
      stderr: true,
      // The worker's own JavaScript heap (QuickJS's memory is WebAssembly memory, capped by QuickJS's limit).
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout;
      let settled = false;
      const finish = (outcome: Omit<SandboxResult, "ms"> | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        void worker.terminate();
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const stopped = (error: string) => finish({ ok: false, stdout: "", error });
      const onAbort = () => stopped("stopped: cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(
        () => stopped(`stopped: the sandbox did not start within ${seconds(this.startTimeoutMs)}`),
        this.startTimeoutMs,
      );
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "started") {
          // From the script's first statement: QuickJS's interrupt fires at the limit, this a little after.
          clearTimeout(timer);
          timer = setTimeout(
            () => stopped(`stopped: ran past ${seconds(limits.timeMs)}`),
            limits.timeMs + GRACE_MS,
          );
          return;
        }
        finish(resultOf(message));
      });
      worker.on("error", (error: Error & { code?: string }) => {
        if (error.code === "ERR_WORKER_OUT_OF_MEMORY")
          stopped(`stopped: memory limit ${megabytes(limits.memoryBytes)}`);
        else finish(new Error(`the sandbox failed: ${error.message}`));
      });
      worker.on("exit", () => finish(new Error("the sandbox ended without a result")));
    });
  }

  private async slot(signal?: AbortSignal): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error("stopped: cancelled while waiting for a free sandbox"));
      };
      const go = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next run waiting; otherwise it is freed.
    if (next) next();
    else this.running--;
  }
}

type WorkerMessage =
  | { type: "started" }
  | {
      type: "done";
      ok: boolean;
      resultJson?: string;
      resultCut?: string;
      error?: string;
      stdout: string;
      stdoutCut: boolean;
    };

function resultOf(message: Extract<WorkerMessage, { type: "done" }>): Omit<SandboxResult, "ms"> {
  const stdout = message.stdoutCut ? `${message.stdout}…[output cut at the limit]` : message.stdout;
  if (!message.ok) return { ok: false, stdout, error: message.error ?? "failed" };
  const result =
    message.resultCut ?? (message.resultJson === undefined ? undefined : JSON.parse(message.resultJson));
  return { ok: true, stdout, ...(result === undefined ? {} : { result }) };
}

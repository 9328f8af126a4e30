// The code sandbox itself (no database): QuickJS in a worker thread per run, under its time, memory, stack and
// output limits, with nothing of the host inside; the process's event loop keeps answering while a run spins.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeSandbox, FOREGROUND_LIMITS, type SandboxLimits } from "@/lib/agent/code/sandbox";

const sandbox = new CodeSandbox();
const limits = (over: Partial<SandboxLimits> = {}): SandboxLimits => ({ ...FOREGROUND_LIMITS, ...over });
const run = (code: string, over: Partial<SandboxLimits> = {}, files = null) =>
  sandbox.run(code, { limits: limits(over), files });

describe("the code sandbox", () => {
  let server: http.Server;
  let serverUrl: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end("pong"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The first fetch loads the HTTP client: not what the event-loop test measures.
    await fetch(serverUrl).then((r) => r.text());
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("returns the last expression's value and what console.log printed", async () => {
    const result = await run(
      `console.log("sum", 1 + 2, {a: [1]}); ({ total: [1, 2, 3].reduce((a, b) => a + b), big: 2n ** 70n })`,
    );
    expect(result).toMatchObject({
      ok: true,
      result: { total: 6, big: "1180591620717411303424" },
      stdout: 'sum 3 {"a":[1]}\n',
    });
    expect((await run("let x = 1")).result).toBeUndefined();
  });

  it("awaits a script's promise (no timers exist, so one that waits on nothing is named)", async () => {
    expect(await run("(async () => { const v = await Promise.resolve(21); return v * 2 })()")).toMatchObject({
      ok: true,
      result: 42,
    });
    expect(await run("new Promise(() => {})")).toMatchObject({
      ok: false,
      error: expect.stringContaining("never settled"),
    });
    expect(await run("Promise.reject(new TypeError('nope'))")).toMatchObject({
      ok: false,
      error: "TypeError: nope",
    });
  });

  it("stops an endless loop at its time limit while this process's event loop keeps answering", async () => {
    const gaps: number[] = [];
    let last = Date.now();
    const ticker = setInterval(() => {
      const now = Date.now();
      gaps.push(now - last);
      last = now;
    }, 20);
    const spinning = run("let i = 0; while (true) { i++ }", { timeMs: 3_000 });
    // While the sandbox spins (it has started by then): an HTTP request to a local server is answered at once.
    await new Promise((r) => setTimeout(r, 1_500));
    const asked = Date.now();
    const pong = await fetch(serverUrl).then((r) => r.text());
    const answeredIn = Date.now() - asked;
    const result = await spinning;
    clearInterval(ticker);
    expect(pong).toBe("pong");
    expect(answeredIn).toBeLessThan(100);
    expect(result).toMatchObject({ ok: false, error: "stopped: ran past 3 s" });
    expect(result.ms).toBeLessThan(10_000);
    expect(gaps.length).toBeGreaterThan(50);
    expect(Math.max(...gaps)).toBeLessThan(100);
  });

  it("stops a 1 GB allocation at the memory limit", async () => {
    const typed = await run("new Uint8Array(1024 * 1024 * 1024).length");
    expect(typed).toMatchObject({ ok: false, error: "stopped: memory limit 64 MB" });
    const arrays = await run(
      "const keep = []; while (true) keep.push(new Array(1e6).fill(1.5)); keep.length",
    );
    expect(arrays).toMatchObject({ ok: false, error: "stopped: memory limit 64 MB" });
    // QuickJS does not count typed arrays' bytes: the capped WebAssembly memory stops them, at once.
    const buffers = await run("const held = []; for (;;) held.push(new Uint8Array(1e7)); held.length");
    expect(buffers).toMatchObject({ ok: false, error: "stopped: memory limit 64 MB" });
    // The next run is unaffected.
    expect(await run("6 * 7")).toMatchObject({ ok: true, result: 42 });
  });

  it("stops runaway recursion at the stack limit", async () => {
    const result = await run("function down(n) { return down(n + 1) + 1 } down(0)");
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/^stopped: stack overflow/) });
  });

  it("has no network, modules, process, timers or host objects inside", async () => {
    const result = await run(
      `[typeof fetch, typeof require, typeof process, typeof setTimeout, typeof setInterval, typeof XMLHttpRequest,
        typeof WebAssembly, typeof Deno, typeof Bun, typeof readFile, typeof listFiles]`,
    );
    expect(result.ok).toBe(true);
    expect(new Set(result.result as string[])).toEqual(new Set(["undefined"]));
    expect(await run("fetch('http://127.0.0.1/')")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^ReferenceError: .*fetch/),
    });
    expect(await run("require('fs')")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^ReferenceError/),
    });
    expect(await run("import('fs')")).toMatchObject({ ok: false });
  });

  it("caps console output and a large result at the output limit", async () => {
    const printed = await run(
      `for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "x".repeat(50)); "ok"`,
      {
        outputChars: 2_000,
      },
    );
    expect(printed.ok).toBe(true);
    expect(printed.stdout.length).toBeLessThan(2_100);
    expect(printed.stdout).toMatch(/…\[output cut at the limit\]$/);
    const big = await run(`"y".repeat(10000)`, { outputChars: 500 });
    expect(String(big.result)).toMatch(/^"y{499}…\[cut at 500 characters\]$/);
  });

  it("reports a syntax error and a thrown error by name, with the output printed before it", async () => {
    expect(await run("let = ;")).toMatchObject({ ok: false, error: expect.stringMatching(/^SyntaxError/) });
    expect(await run("console.log('before'); throw new RangeError('bad input')")).toMatchObject({
      ok: false,
      error: "RangeError: bad input",
      stdout: "before\n",
    });
  });

  it("reads the granted files read-only, and names a missing one", async () => {
    const files = [
      { path: "/files/notes.txt", name: "notes.txt", type: "text/plain", size: 5, text: "hello" },
      { path: "/files/cat.png", name: "cat.png", type: "image/png", size: 10, text: null },
    ];
    const result = await sandbox.run(
      `[listFiles().map(f => f.path), readFile("/files/notes.txt"), readFile("notes.txt").length]`,
      { limits: limits(), files },
    );
    expect(result).toMatchObject({ ok: true, result: [["/files/notes.txt", "/files/cat.png"], "hello", 5] });
    expect(await sandbox.run(`readFile("/files/other.txt")`, { limits: limits(), files })).toMatchObject({
      ok: false,
      error: expect.stringContaining("no such file: /files/other.txt"),
    });
    expect(await sandbox.run(`readFile("/files/cat.png")`, { limits: limits(), files })).toMatchObject({
      ok: false,
      error: expect.stringContaining("has no text"),
    });
  });

  it("is stopped by its signal (Stop, task_stop), and runs at most maxConcurrent at once", async () => {
    const one = new CodeSandbox({ maxConcurrent: 1 });
    const controller = new AbortController();
    const first = one.run("while (true) {}", {
      limits: limits({ timeMs: 10_000 }),
      signal: controller.signal,
    });
    const second = one.run("1 + 1", { limits: limits() });
    setTimeout(() => controller.abort(), 300);
    expect(await first).toMatchObject({ ok: false, error: "stopped: cancelled" });
    expect(await second).toMatchObject({ ok: true, result: 2 });
  });
});

// One code run, in its own worker thread: QuickJS (WebAssembly) with a memory limit, a stack limit and a deadline,
// and nothing of the host but console output (and, when granted, the conversation's files, read-only). The thread
// that started it terminates this worker at the deadline whatever happens here, so an infinite loop or a huge
// allocation costs this thread only. Plain JavaScript: a worker cannot load TypeScript.
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from "quickjs-emscripten";

/**
 * @typedef {{ timeMs: number, memoryBytes: number, stackBytes: number, outputChars: number }} Limits
 * @typedef {{ path: string, name: string, type: string, size: number, text: string | null }} SandboxFile
 * @typedef {{ code: string, limits: Limits, files: SandboxFile[] | null }} Job
 */

/** @type {Job} */
const job = workerData;
const { limits } = job;

// console.* inside the sandbox: each line formatted there, kept here up to the output limit.
const CONSOLE_SETUP = `(function (write) {
  const show = (v) => {
    if (typeof v === "string") return v;
    if (v === undefined || typeof v === "function" || typeof v === "symbol") return String(v);
    if (typeof v === "bigint") return v + "n";
    if (v instanceof Error) return v.name + ": " + v.message;
    try {
      const s = JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
      return s === undefined ? String(v) : s;
    } catch (e) {
      return String(v);
    }
  };
  const line = (...args) => { write(args.map(show).join(" ")); };
  globalThis.console = { log: line, info: line, warn: line, error: line, debug: line };
})`;

// The last expression's value as JSON text (undefined stays undefined; what JSON cannot carry becomes a string).
const RESULT_TO_JSON = `(function (v) {
  if (v === undefined) return undefined;
  try {
    const s = JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
    return s === undefined ? JSON.stringify(String(v)) : s;
  } catch (e) {
    return JSON.stringify(String(v));
  }
})`;

// The read-only file globals: the host answers JSON, so a missing file is an ordinary Error inside the sandbox.
const FILES_SETUP = `(function (list, read) {
  globalThis.listFiles = () => JSON.parse(list());
  globalThis.readFile = (path) => {
    const answer = JSON.parse(read(String(path)));
    if (answer.error) throw new Error(answer.error);
    return answer.text;
  };
})`;

const WASM_PAGE_BYTES = 65_536;
const WASM_HEADROOM_BYTES = 32 * 1024 * 1024;

const out = { text: "", cut: false };
function write(line) {
  if (out.cut) return;
  const room = limits.outputChars - out.text.length;
  const piece = `${line}\n`;
  if (piece.length > room) {
    out.text += piece.slice(0, Math.max(0, room));
    out.cut = true;
  } else out.text += piece;
}

const seconds = (ms) => `${Math.round(ms / 100) / 10} s`;
const mb = (bytes) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** A QuickJS error in words a user reads: the limits by name, anything else as the script's own error. */
function describeError(error) {
  const name = typeof error?.name === "string" ? error.name : "Error";
  const message = typeof error?.message === "string" ? error.message : String(error);
  if (/interrupted/i.test(message)) return `stopped: ran past ${seconds(limits.timeMs)}`;
  if (/out of memory|\bOOM\b|enlarge memory/i.test(message))
    return `stopped: memory limit ${mb(limits.memoryBytes)}`;
  if (/stack overflow/i.test(message))
    return `stopped: stack overflow (the stack is limited to ${Math.round(limits.stackBytes / 1024)} KB)`;
  return `${name}: ${message}`;
}

function fileAnswer(files, path) {
  const wanted = path.replace(/^\/?files\//, "");
  const file = files.find((f) => f.path === path || f.name === wanted || f.path === `/files/${wanted}`);
  if (!file) return { error: `no such file: ${path} (listFiles() lists this conversation's files)` };
  if (file.text === null) return { error: `${file.path} is ${file.type}: it has no text to read` };
  return { text: file.text };
}

async function run() {
  // QuickJS's memory limit counts its own heap but not typed arrays' bytes: the WebAssembly memory itself is
  // capped too (the limit plus room for QuickJS's own structures), so no allocation can grow this worker past it.
  const wasmMemory = new WebAssembly.Memory({
    initial: 256,
    maximum: Math.ceil((limits.memoryBytes + WASM_HEADROOM_BYTES) / WASM_PAGE_BYTES),
  });
  const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory }));
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const vm = runtime.newContext();

  const install = (source, ...hostFunctions) => {
    const setup = vm.unwrapResult(vm.evalCode(source));
    const handles = hostFunctions.map(([name, fn]) => vm.newFunction(name, fn));
    vm.unwrapResult(vm.callFunction(setup, vm.undefined, ...handles)).dispose();
    for (const h of handles) h.dispose();
    setup.dispose();
  };
  install(CONSOLE_SETUP, [
    "write",
    (line) => {
      write(vm.getString(line));
    },
  ]);
  if (job.files) {
    const files = job.files;
    const listing = JSON.stringify(files.map(({ path, name, type, size }) => ({ path, name, type, size })));
    install(
      FILES_SETUP,
      ["list", () => vm.newString(listing)],
      ["read", (path) => vm.newString(JSON.stringify(fileAnswer(files, vm.getString(path))))],
    );
  }

  // The clock starts when the script does: loading QuickJS is not the script's time.
  const deadline = Date.now() + limits.timeMs;
  parentPort.postMessage({ type: "started" });
  runtime.setInterruptHandler(() => Date.now() > deadline);

  const evaluated = vm.evalCode(job.code, "code.js");
  if (evaluated.error) {
    const error = vm.dump(evaluated.error);
    return { ok: false, error: describeError(error) };
  }
  let value = evaluated.value;
  // An async script's value is a promise: run its jobs (under the same deadline) and take what it settled to.
  if (vm.typeof(value) === "object" && isPromise(vm, value)) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) return { ok: false, error: describeError(vm.dump(jobs.error)) };
    const state = vm.getPromiseState(value);
    if (state.type === "pending")
      return { ok: false, error: "the script's promise never settled (there are no timers or network here)" };
    if (state.type === "rejected") return { ok: false, error: describeError(vm.dump(state.error)) };
    value = state.value;
  }
  const toJson = vm.unwrapResult(vm.evalCode(RESULT_TO_JSON));
  const json = vm.callFunction(toJson, vm.undefined, value);
  if (json.error) return { ok: false, error: describeError(vm.dump(json.error)) };
  const text = vm.typeof(json.value) === "string" ? vm.getString(json.value) : undefined;
  // A value larger than the output limit comes back as the start of its JSON text.
  if (text !== undefined && text.length > limits.outputChars)
    return {
      ok: true,
      resultCut: `${text.slice(0, limits.outputChars)}…[cut at ${limits.outputChars} characters]`,
    };
  return { ok: true, resultJson: text };
}

function isPromise(vm, handle) {
  const check = vm.unwrapResult(vm.evalCode("(v) => v instanceof Promise"));
  const answer = vm.unwrapResult(vm.callFunction(check, vm.undefined, handle));
  const yes = vm.dump(answer) === true;
  answer.dispose();
  check.dispose();
  return yes;
}

let ended;
try {
  ended = await run();
} catch (error) {
  // QuickJS can fail outside the script's own error (an allocation the limit refused while building a value).
  ended = { ok: false, error: describeError(error) };
}
// Nothing is disposed: the thread that started this worker terminates it, which frees everything at once.
parentPort.postMessage({ type: "done", ...ended, stdout: out.text, stdoutCut: out.cut });

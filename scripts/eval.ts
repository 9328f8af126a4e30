/**
 * The CI gate: `npm run eval -- --dataset NAME --target ALIAS[@PROMPT[:LABEL|:VERSION]] [--target …]
 * [--min-pass 0.9] [--concurrency N] [--name TEXT] [--timeout SECONDS]` against a Tollgate server
 * (TOLLGATE_URL, TOLLGATE_API_KEY: a tenant API key). Starts an evaluation run of the dataset, follows it, prints
 * the comparison table, and exits 0 when every target's pass rate reaches --min-pass, 1 when one does not (or the
 * run did not finish: cancelled, stopped by the budget, failed), 2 on a usage or HTTP error (the server's message).
 */
import type { RunView, TargetSummary } from "@/features/evals/contracts";

class UsageError extends Error {}

type Target = { model: string; prompt?: { name: string; version?: number; label?: string } };

export type EvalArgs = {
  dataset: string;
  targets: Target[];
  minPass: number | null;
  concurrency?: number;
  name?: string;
  timeoutSeconds: number;
};

const USAGE =
  "usage: npm run eval -- --dataset NAME --target ALIAS[@PROMPT[:LABEL|:VERSION]] [--target …] [--min-pass 0.9] [--concurrency N] [--name TEXT] [--timeout SECONDS]\n" +
  "environment: TOLLGATE_URL (the server), TOLLGATE_API_KEY (a tenant API key)";

/** `team-gpt`, `team-gpt@support/triage` (its production label), `…@support/triage:staging`, `…@support/triage:3`. */
export function parseTarget(text: string): Target {
  const at = text.indexOf("@");
  const model = at < 0 ? text : text.slice(0, at);
  if (!model) throw new UsageError(`--target ${text}: the model alias is missing`);
  if (at < 0) return { model };
  const ref = text.slice(at + 1);
  const colon = ref.lastIndexOf(":");
  const name = colon < 0 ? ref : ref.slice(0, colon);
  const tail = colon < 0 ? "" : ref.slice(colon + 1);
  if (!name) throw new UsageError(`--target ${text}: the prompt name is missing after "@"`);
  if (colon >= 0 && !tail) throw new UsageError(`--target ${text}: the label is missing after ":"`);
  if (!tail) return { model, prompt: { name } };
  return /^\d+$/.test(tail)
    ? { model, prompt: { name, version: Number(tail) } }
    : { model, prompt: { name, label: tail } };
}

export function parseArgs(argv: string[]): EvalArgs {
  const out: EvalArgs = { dataset: "", targets: [], minPass: null, timeoutSeconds: 1800 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const [key, inline] = flag.includes("=")
      ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)]
      : [flag, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${key} needs a value`);
      return v;
    };
    const number = (v: string, what: string, min: number, max: number, integer = false) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
        throw new UsageError(`${key} ${v}: ${what} from ${min} to ${max}`);
      return n;
    };
    if (key === "--dataset") out.dataset = value();
    else if (key === "--target") out.targets.push(parseTarget(value()));
    else if (key === "--min-pass") out.minPass = number(value(), "a pass rate", 0, 1);
    else if (key === "--concurrency") out.concurrency = number(value(), "a whole number", 1, 32, true);
    else if (key === "--name") out.name = value();
    else if (key === "--timeout") out.timeoutSeconds = number(value(), "seconds", 1, 86_400, true);
    else if (key === "--help" || key === "-h") throw new UsageError("");
    else throw new UsageError(`unknown option ${flag}`);
  }
  if (!out.dataset) throw new UsageError("--dataset is required");
  if (!out.targets.length) throw new UsageError("at least one --target is required");
  return out;
}

const percent = (n: number | null) => (n === null ? "–" : `${(n * 100).toFixed(1)}%`);
const ms = (n: number | null) => (n === null ? "–" : `${n} ms`);
const usd = (s: string | null) => (s === null ? "–" : `$${s}`);

export function targetLabel(t: Pick<TargetSummary, "model" | "prompt">): string {
  if (!t.prompt) return t.model;
  const ref =
    t.prompt.version !== undefined ? `:${t.prompt.version}` : t.prompt.label ? `:${t.prompt.label}` : "";
  return `${t.model}@${t.prompt.name}${ref}`;
}

/** The comparison as a plain-text table, one line per target. */
export function comparisonTable(run: Pick<RunView, "targets">, minPass: number | null): string {
  const header = ["target", "pass rate", "mean score", "cost", "cost/pass", "p50", "p95", "failures", ""];
  const rows = run.targets.map((t) => [
    targetLabel(t),
    `${percent(t.passRate)} (${t.passed}/${t.done})`,
    t.meanScore === null ? "–" : t.meanScore.toFixed(3),
    usd(t.cost),
    usd(t.costPerPass),
    ms(t.p50LatencyMs),
    ms(t.p95LatencyMs),
    String(t.failures),
    minPass === null ? "" : (t.passRate ?? 0) >= minPass ? "ok" : `below ${percent(minPass)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

class HttpError extends Error {}

async function call<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw new HttpError(`cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { message?: string; fields?: Record<string, string[]> } } | null)
      ?.error;
    const fields = error?.fields
      ? ` (${Object.entries(error.fields)
          .map(([f, p]) => `${f}: ${p.join(", ")}`)
          .join("; ")})`
      : "";
    throw new HttpError(
      `${method} ${path}: HTTP ${res.status}: ${error?.message ?? text.slice(0, 300)}${fields}`,
    );
  }
  return parsed as T;
}

const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const err = (s: string) => process.stderr.write(`${s}\n`);
  try {
    const args = parseArgs(argv);
    const base = env.TOLLGATE_URL?.replace(/\/+$/, "");
    const key = env.TOLLGATE_API_KEY?.trim();
    if (!base)
      throw new UsageError("set TOLLGATE_URL to the Tollgate server (e.g. https://tollgate.example.com)");
    if (!key) throw new UsageError("set TOLLGATE_API_KEY to a tenant API key (tg_…)");
    const pollMs = Number(env.TOLLGATE_EVAL_POLL_MS) || 2_000;
    const { dataset } = await call<{ dataset: { id: string; name: string; items: number } }>(
      base,
      key,
      "GET",
      `/v1/evals/datasets/${encodeURIComponent(args.dataset)}`,
    );
    const started = await call<{ id: string; total: number }>(base, key, "POST", "/v1/evals/runs", {
      datasetId: dataset.id,
      targets: args.targets,
      ...(args.concurrency ? { concurrency: args.concurrency } : {}),
      ...(args.name ? { name: args.name } : {}),
    });
    err(
      `run ${started.id}: ${dataset.name} (${dataset.items} items) × ${args.targets.length} target(s) = ${started.total} calls`,
    );
    const deadline = Date.now() + args.timeoutSeconds * 1000;
    let run: RunView;
    let last = "";
    for (;;) {
      run = await call<RunView>(base, key, "GET", `/v1/evals/runs/${started.id}?items=0`);
      const line = `${run.status}: ${run.progress.done}/${run.progress.total} done, ${run.progress.passed} passed, $${run.progress.cost}${run.progress.etaSeconds !== null ? `, ~${run.progress.etaSeconds}s left` : ""}`;
      if (line !== last) err(line);
      last = line;
      if (run.status !== "queued" && run.status !== "running") break;
      if (Date.now() > deadline) {
        await call(base, key, "POST", `/v1/evals/runs/${started.id}/cancel`, {}).catch(() => undefined);
        err(`timed out after ${args.timeoutSeconds}s: the run was cancelled`);
        return 1;
      }
      await sleep(pollMs);
    }
    out(comparisonTable(run, args.minPass));
    if (run.status !== "done") {
      err(`the run ended ${run.status}${run.error ? `: ${run.error}` : ""}`);
      return 1;
    }
    const below = args.minPass === null ? [] : run.targets.filter((t) => (t.passRate ?? 0) < args.minPass!);
    if (below.length) {
      err(`below --min-pass ${args.minPass}: ${below.map(targetLabel).join(", ")}`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      if (error.message) err(error.message);
      err(USAGE);
      return 2;
    }
    if (error instanceof HttpError) {
      err(error.message);
      return 2;
    }
    err(`eval failed: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

if (process.argv[1]?.endsWith("eval.ts"))
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });

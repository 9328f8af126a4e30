import { describe, expect, it } from "vitest";
import { exists, filesUnder, proseLines, readText } from "./markdown";

// Product code: what runs in the app, the lean gateway, the worker and the scripts (not tests/ or bench/, whose
// variables are documented with them). components/ is included so a browser read cannot slip past.
const PRODUCT_DIRS = ["app", "components", "lib", "features", "server", "db", "scripts"];
const PRODUCT_FILES = ["proxy.ts", "instrumentation.ts", "next.config.mjs"];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

// Set by the platform, never by an operator: Next's runtime and build phase, vitest, the shell and the terminal.
const PLATFORM_SET = new Set(["NEXT_RUNTIME", "NEXT_PHASE", "VITEST", "PATH", "NODE_OPTIONS", "FORCE_COLOR"]);

const NAME = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

type Read = { name: string; file: string; line: number };

/**
 * Every environment variable a source file reads by name: `process.env.NAME`, `process.env["NAME"]`, the same on
 * an `env` object handed in (`env.NAME`, `options.env.NAME`, `env?.NAME`, `env["NAME"]`), names destructured from
 * `process.env` or `env`, and a literal name given to a helper whose name says env (`envInt("NAME")`,
 * `envOf(env, "https_proxy")`, read as upper case).
 */
function envReads(file: string, text: string): Read[] {
  const reads: Read[] = [];
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  const add = (name: string, index: number) => {
    const upper = name.toUpperCase();
    if (NAME.test(upper)) reads.push({ name: upper, file, line: lineOf(index) });
  };
  for (const m of text.matchAll(/(?<![\w$])(?:process\.)?env\??\.([A-Za-z_][A-Za-z0-9_]*)/g))
    if (NAME.test(m[1]!)) add(m[1]!, m.index);
  for (const m of text.matchAll(
    /(?<![\w$])(?:process\.)?env\??\.?\[\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]\s*\]/g,
  ))
    add(m[1]!, m.index);
  for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*(?:process\.)?env\b/g))
    for (const part of m[1]!.split(",")) {
      const key = part.split(/[:=]/)[0]!.trim();
      if (NAME.test(key)) add(key, m.index);
    }
  for (const m of text.matchAll(
    /\b\w*[eE]nv\w*\(\s*(?:[\w.]+\s*,\s*)?["'`]([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)["'`]/g,
  ))
    add(m[1]!, m.index);
  return reads;
}

/** The variables named in the first cell of each row of docs/operating.md's "## Configuration" table. */
function documentedVariables(markdown: string): string[] {
  const lines = proseLines(markdown);
  const start = lines.findIndex((line) => /^##\s+Configuration\s*$/.test(line));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && /^##\s/.test(line));
  const rows = lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => line.startsWith("|"));
  return rows
    .slice(2) // the header row and its separator
    .flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
}

const sources = [
  ...PRODUCT_DIRS.flatMap((dir) => filesUnder(dir, (name) => SOURCE.test(name) && !name.endsWith(".d.ts"))),
  ...PRODUCT_FILES.filter(exists),
];
const reads = sources.flatMap((file) => envReads(file, readText(file)));
const documented = documentedVariables(readText("docs/operating.md"));

describe("the configuration reference (docs/operating.md)", () => {
  it("finds the reads it is meant to find", () => {
    const names = new Set(reads.map((r) => r.name));
    // One of each kind: process.env.X, env.X on a handed-in object, a helper with a literal, envOf's lower case.
    for (const name of ["LOG_LEVEL", "DATABASE_URL", "TOLLGATE_LEDGER_MAX_ROWS", "HTTPS_PROXY", "NO_PROXY"])
      expect(names, `no read of ${name} found: the scanner is broken`).toContain(name);
  });

  it("has one configuration table, naming each variable once", () => {
    expect(documented.length).toBeGreaterThan(40);
    const twice = documented.filter((name, i) => documented.indexOf(name) !== i);
    expect(twice, `listed more than once: ${twice.join(", ")}`).toEqual([]);
  });

  it("lists every environment variable the product code reads", () => {
    const known = new Set([...documented, ...PLATFORM_SET]);
    const missing = new Map<string, string[]>();
    for (const read of reads)
      if (!known.has(read.name))
        missing.set(read.name, [...(missing.get(read.name) ?? []), `${read.file}:${read.line}`]);
    const report = [...missing].map(
      ([name, where]) =>
        `${name} (read in ${where.join(", ")}) is not in docs/operating.md's configuration table`,
    );
    expect(report, report.join("\n")).toEqual([]);
  });

  it("lists no variable that nothing reads any more", () => {
    // Tests, benchmarks, the images and CI read variables too (documented beside the product's): any mention of
    // the name outside the docs counts, so only a row whose variable vanished from the whole tree fails.
    const elsewhere = [
      ...sources,
      ...["tests", "bench", ".ci", "deploy"].flatMap((dir) =>
        filesUnder(dir, (name) => SOURCE.test(name) || !name.includes(".")),
      ),
      ...["Dockerfile", "compose.yaml", "package.json", "playwright.config.ts", "vitest.config.ts"].filter(
        exists,
      ),
    ]
      .filter((file) => file !== "tests/docs/config-reference.test.ts")
      .flatMap((file) => readText(file).match(/\b[A-Z][A-Z0-9_]*\b/g) ?? []);
    const mentioned = new Set(elsewhere);
    const unread = documented.filter((name) => !mentioned.has(name));
    expect(unread, `documented but read nowhere: ${unread.join(", ")}`).toEqual([]);
  });
});

describe("the reads the scanner recognises", () => {
  it("process.env, a handed-in env, brackets, destructuring and env helpers with literal names", () => {
    const text = [
      "const a = process.env.ALPHA_ONE;",
      'const b = process.env["BETA"];',
      "const c = options.env.GAMMA ?? env?.DELTA;",
      "const { EPSILON, ZETA: z = '1' } = process.env;",
      'const h = envInt("ETA_MS", 3);',
      'const p = envOf(env, "https_proxy");',
      "const notEnv = stepEnv.THETA; env.lowercase; somethingenv.IOTA;",
    ].join("\n");
    expect(envReads("x.ts", text).map((r) => r.name)).toEqual([
      "ALPHA_ONE",
      "GAMMA",
      "DELTA",
      "BETA",
      "EPSILON",
      "ZETA",
      "ETA_MS",
      "HTTPS_PROXY",
    ]);
  });
});

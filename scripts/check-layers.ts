/**
 * The import-layering check (`npm run check:layers`, part of `npm test`): reads every import in the tree with
 * TypeScript's own pre-processor and fails when an arrow points the wrong way. The rules are the
 * "Which way the arrows point" section of docs/architecture.md, as data.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = process.cwd();
const SOURCE_DIRS = ["app", "components", "features", "lib", "db", "server", "scripts", "bench", "tests"];
const ROOT_FILES = ["proxy.ts", "instrumentation.ts"];
const SERVER_ONLY = /^\s*import\s+["']server-only["'];?\s*$/m;
const USE_CLIENT = /^\s*["']use client["'];?\s*$/m;
const SKIP = new Set(["node_modules", ".next", ".git", ".data", "reports", "test-results", "migrations"]);

/** One source file as the checker sees it: its imports inside the tree, its packages, its two directives. */
export type Module = {
  file: string;
  imports: { target: string; typeOnly: boolean }[];
  external: string[];
  /** Starts with `import "server-only"`. */
  serverOnly: boolean;
  /** Starts with `"use client"`: a browser entry point. */
  useClient: boolean;
};

export function readTree(root = ROOT): Map<string, Module> {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(path.join(root, dir))) return;
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(rel);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  for (const file of ROOT_FILES) if (existsSync(path.join(root, file))) files.push(file);
  const known = new Set(files);
  const modules = new Map<string, Module>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    const info = ts.preProcessFile(text, true, true);
    const mod: Module = {
      file,
      imports: [],
      external: [],
      serverOnly: SERVER_ONLY.test(text),
      useClient: USE_CLIENT.test(text),
    };
    for (const imported of info.importedFiles) {
      const spec = imported.fileName;
      const target = resolve(root, known, file, spec);
      if (target) mod.imports.push({ target, typeOnly: isTypeOnly(text, imported.pos) });
      else if (!spec.startsWith(".") && !spec.startsWith("@/")) mod.external.push(spec);
    }
    modules.set(file, mod);
  }
  return modules;
}

function isTypeOnly(text: string, pos: number): boolean {
  const start = text.lastIndexOf("\n", pos) + 1;
  return /^\s*(import|export)\s+type\s/.test(text.slice(start, pos));
}

const EXTENSIONS = ["", ".ts", ".tsx", ".mjs", "/index.ts", "/index.tsx"];
function resolve(root: string, known: Set<string>, from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith("./") || spec.startsWith("../"))
    base = path.normalize(path.join(path.dirname(from), spec));
  else return null;
  for (const ext of EXTENSIONS) if (known.has(base + ext)) return base + ext;
  const json = path.join(root, base);
  return existsSync(json) && statSync(json).isFile() ? base : null;
}

/** The room a file lives in: `lib/<domain>`, `features/<name>`, or its top folder. */
export function roomOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "lib")
    return parts.length > 2 ? `lib/${parts[1]}` : `lib/${parts[1]!.replace(/\.tsx?$/, "")}`;
  if (parts[0] === "features") return `features/${parts[1]}`;
  return parts[0]!;
}

type Rule = {
  name: string;
  applies: (file: string) => boolean;
  forbids: (target: string, file: string) => boolean;
};

const isLib = (f: string) => f.startsWith("lib/");
const RULES: Rule[] = [
  {
    name: "db/ imports nothing from lib/, features/, app/ or components/",
    applies: (f) => f.startsWith("db/"),
    forbids: (t) => !t.startsWith("db/") && !t.endsWith(".json"),
  },
  {
    name: "lib/ imports nothing from app/, components/, features/, scripts/, bench/ or tests/",
    applies: isLib,
    forbids: (t) => /^(app|components|features|scripts|bench|tests|server)\//.test(t),
  },
  {
    name: "lib/gateway imports nothing from the database or other lib/ domains (lib/core only)",
    applies: (f) => f.startsWith("lib/gateway/"),
    forbids: (t) => !t.startsWith("lib/gateway/") && !t.startsWith("lib/core/") && !t.startsWith("schemas/"),
  },
  {
    name: "lib/turns imports no domain (the provider-neutral types of lib/gateway and lib/core only)",
    applies: (f) => f.startsWith("lib/turns/"),
    forbids: (t) => !t.startsWith("lib/turns/") && !t.startsWith("lib/core/") && t !== "lib/gateway/types.ts",
  },
  {
    name: "lib/guardrails/checks imports only lib/core, the guardrails contract and itself",
    applies: (f) => f.startsWith("lib/guardrails/checks/"),
    forbids: (t) =>
      !t.startsWith("lib/guardrails/checks/") &&
      !t.startsWith("lib/core/") &&
      t !== "lib/guardrails/types.ts",
  },
  {
    name: "lib/core imports nothing but lib/core",
    applies: (f) => f.startsWith("lib/core/"),
    forbids: (t) => !t.startsWith("lib/core/") && !t.endsWith(".json"),
  },
  {
    name: "components/ (shared UI primitives) imports nothing from features/",
    applies: (f) => f.startsWith("components/"),
    forbids: (t) => t.startsWith("features/"),
  },
  {
    name: "a feature imports another feature only through its contracts.ts, server/index.ts or components/index.ts",
    applies: (f) => f.startsWith("features/"),
    forbids: (t, f) => {
      const m = /^features\/([^/]+)\/(.*)$/.exec(t);
      if (!m || f.startsWith(`features/${m[1]}/`)) return false;
      return !/^(contracts\.ts|server\/index\.ts|components\/index\.ts)$/.test(m[2]!);
    },
  },
  {
    name: "bench/ imports nothing from tests/",
    applies: (f) => f.startsWith("bench/"),
    forbids: (t) => t.startsWith("tests/"),
  },
  {
    name: "product code imports nothing from bench/ or tests/",
    applies: (f) => /^(app|components|features|lib|db|server)\//.test(f),
    forbids: (t) => /^(bench|tests)\//.test(t),
  },
];
const FRAMEWORK_FREE = ["lib/gateway/", "lib/turns/", "lib/core/", "db/"];
const FRAMEWORK_PACKAGES = /^(next|next-auth|react|react-dom)(\/|$)/;
const DATABASE_PACKAGES = /^(drizzle-orm|postgres|@electric-sql\/pglite)(\/|$)/;

export type Violation = { rule: string; file: string; target: string };

export function checkLayers(modules: Map<string, Module>): Violation[] {
  const found: Violation[] = [];
  for (const mod of modules.values()) {
    for (const { target } of mod.imports)
      for (const rule of RULES)
        if (rule.applies(mod.file) && rule.forbids(target, mod.file))
          found.push({ rule: rule.name, file: mod.file, target });
    if (FRAMEWORK_FREE.some((p) => mod.file.startsWith(p)))
      for (const ext of mod.external)
        if (FRAMEWORK_PACKAGES.test(ext))
          found.push({
            rule: "lib/gateway, lib/turns, lib/core and db/ import nothing from Next or React",
            file: mod.file,
            target: ext,
          });
    if (["lib/gateway/", "lib/turns/", "lib/core/"].some((p) => mod.file.startsWith(p)))
      for (const ext of mod.external)
        if (DATABASE_PACKAGES.test(ext))
          found.push({
            rule: "lib/gateway, lib/turns and lib/core use no database",
            file: mod.file,
            target: ext,
          });
  }
  // features/*/contracts.ts is what the browser's forms import: zod comes from lib/core/zod, which parses
  // without eval there (the CSP refuses it, and zod's probe for it is reported as a violation).
  for (const mod of modules.values())
    if (/^features\/[^/]+\/contracts\.ts$/.test(mod.file) && mod.external.includes("zod"))
      found.push({
        rule: "features/*/contracts.ts take zod from lib/core/zod (no eval in the browser under the CSP)",
        file: mod.file,
        target: "zod",
      });
  found.push(...clientReachesServer(modules));
  found.push(...roomCycles(modules));
  found.push(...fileCycles(modules));
  return found;
}

/** A browser module ("use client", and everything it imports at run time) never reaches a server-only module. */
function clientReachesServer(modules: Map<string, Module>): Violation[] {
  const found: Violation[] = [];
  const serverOnly = new Set([...modules.values()].filter((m) => m.serverOnly).map((m) => m.file));
  for (const { file: start, useClient } of modules.values()) {
    if (!useClient) continue;
    const seen = new Set([start]);
    const queue: string[][] = [[start]];
    while (queue.length) {
      const trail = queue.shift()!;
      const mod = modules.get(trail.at(-1)!);
      for (const { target, typeOnly } of mod?.imports ?? []) {
        if (typeOnly || seen.has(target)) continue;
        seen.add(target);
        if (serverOnly.has(target)) {
          found.push({ rule: "browser code imports no server-only module", file: trail.join(" → "), target });
          continue;
        }
        queue.push([...trail, target]);
      }
    }
  }
  return found;
}

/** No lib/ domain imports another that imports it back (rooms: lib/<domain>). */
function roomCycles(modules: Map<string, Module>): Violation[] {
  const edges = new Map<string, Map<string, string>>();
  for (const mod of modules.values()) {
    const from = roomOf(mod.file);
    if (!from.startsWith("lib/")) continue;
    for (const { target } of mod.imports) {
      const to = roomOf(target);
      if (to === from || !to.startsWith("lib/")) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, `${mod.file} → ${target}`);
    }
  }
  return cycles(edges).map((members) => ({
    rule: "no lib/ domain imports another that imports it back",
    file: members
      .flatMap((room) =>
        [...(edges.get(room) ?? [])].filter(([to]) => members.includes(to)).map(([, why]) => why),
      )
      .join("\n    "),
    target: members.join(", "),
  }));
}

function fileCycles(modules: Map<string, Module>): Violation[] {
  const edges = new Map<string, Map<string, string>>();
  for (const mod of modules.values())
    edges.set(mod.file, new Map(mod.imports.map((i) => [i.target, i.target])));
  return cycles(edges).map((cycle) => ({
    rule: "no import cycles",
    file: cycle.join(" → "),
    target: cycle[0]!,
  }));
}

/** Strongly connected components with more than one member (Tarjan), each as one cycle's members. */
function cycles(edges: Map<string, Map<string, string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1) out.push(members.reverse());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const violations = checkLayers(readTree());
  for (const v of violations) console.log(`✗ ${v.rule}\n    ${v.file}\n    → ${v.target}`);
  console.log(
    violations.length
      ? `\n${violations.length} layering violations`
      : "import layering: every arrow points one way",
  );
  process.exit(violations.length ? 1 : 0);
}

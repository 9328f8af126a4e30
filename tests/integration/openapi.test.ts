import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { validate } from "@readme/openapi-parser";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiReference } from "@/features/api-reference/components/api-reference";
import { type Guard, type Operation, openApiDocument, operations } from "@/features/api-reference/server";
import { errorExample, errorsOf } from "@/features/api-reference/server/document";
import { anthropicError, appError, jsonRpcError, openAIError } from "@/features/api-reference/server/shapes";

// The API reference cannot drift from the code: every route.ts under app/ and each method it exports is in the
// document, and what the document says a request takes is the very zod object the route validates with. The
// routes are read with TypeScript's own parser (never run), the schemas' modules imported and compared by identity.

const ROOT = process.cwd();
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
const GUARDS: Record<string, Guard> = {
  route: "public",
  withUser: "user",
  withTenantAdmin: "tenant-admin",
  withSuperAdmin: "super-admin",
};
/** Calls that need an active tenant (400 without one). */
const TENANT_CALLS = new Set(["activeTenantOrThrow", "evalAccess", "promptAccess", "reviewerOf"]);

function routeFiles(dir = "app"): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(rel);
    return entry.name === "route.ts" ? [rel] : [];
  });
}

/** app/api/keys/[id]/route.ts → /api/keys/{id}; a catch-all ends the path with its prefix and `catchAll`. */
function pathOf(file: string): { path: string; catchAll: boolean } {
  const parts: string[] = [];
  for (const segment of file.split("/").slice(1, -1)) {
    if (/^\(.*\)$/.test(segment)) continue;
    if (/^\[\[?\.\.\./.test(segment)) return { path: `/${parts.join("/")}`, catchAll: true };
    parts.push(segment.replace(/^\[(.+)\]$/, "{$1}"));
  }
  return { path: `/${parts.join("/")}`, catchAll: false };
}

/** What one exported method (or one whole delegate module) does, as read from its source. */
type Usage = {
  /** Identifiers passed to readJson(req, X). */
  bodies: Set<string>;
  /** Identifiers whose .parse / .safeParse is called. */
  parsed: Set<string>;
  /** Path params checked as UUIDs: z.uuid().safeParse(params.x), uuidOr404(params.x). */
  uuidParams: Set<string>;
  /** searchParams.get("x") / .has("x"). */
  queryNames: Set<string>;
  calls: Set<string>;
  /** The guard its wrapper gives, when it is wrapped in one. */
  guard: Guard | null;
};

type Source = {
  file: string;
  sf: ts.SourceFile;
  imports: Map<string, { module: string; name: string }>;
  decls: Map<string, ts.Node>;
  exported: Map<string, ts.Node>;
};

function readSource(file: string): Source {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports = new Map<string, { module: string; name: string }>();
  const decls = new Map<string, ts.Node>();
  const exported = new Map<string, ts.Node>();
  for (const statement of sf.statements) {
    const isExported = ts
      .getModifiers(statement as ts.HasModifiers)
      ?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isImportDeclaration(statement) && statement.importClause?.namedBindings) {
      const module = (statement.moduleSpecifier as ts.StringLiteral).text;
      const bindings = statement.importClause.namedBindings;
      if (ts.isNamedImports(bindings))
        for (const el of bindings.elements)
          imports.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) {
          decls.set(d.name.text, d.initializer);
          if (isExported) exported.set(d.name.text, d.initializer);
        }
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      decls.set(statement.name.text, statement);
      if (isExported) exported.set(statement.name.text, statement);
    }
  }
  return { file, sf, imports, decls, exported };
}

/** The method's own code and every top-level declaration of its file it reaches, transitively. */
function reachable(source: Source, start: ts.Node): ts.Node[] {
  const seen = new Set<ts.Node>([start]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    const visit = (n: ts.Node) => {
      if (ts.isIdentifier(n)) {
        const decl = source.decls.get(n.text);
        if (decl && !seen.has(decl)) {
          seen.add(decl);
          queue.push(decl);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  }
  return [...seen];
}

/** The guard a method's wrapper gives: `withUser(…)`, or through a pass-through wrapper (`tracedRoute(send)`). */
function guardOf(source: Source, node: ts.Node | undefined, depth = 0): Guard | null {
  if (!node || depth > 5) return null;
  if (ts.isIdentifier(node)) return guardOf(source, source.decls.get(node.text), depth + 1);
  if (!ts.isCallExpression(node)) return null;
  const callee = ts.isIdentifier(node.expression) ? node.expression.text : null;
  if (callee && GUARDS[callee]) return GUARDS[callee]!;
  for (const arg of node.arguments) {
    const found = guardOf(source, arg, depth + 1);
    if (found) return found;
  }
  return null;
}

const paramName = (node: ts.Expression | undefined): string | null =>
  node &&
  ts.isPropertyAccessExpression(node) &&
  ts.isIdentifier(node.expression) &&
  node.expression.text === "params"
    ? node.name.text
    : null;

function usageOf(source: Source, start: ts.Node): Usage {
  const usage: Usage = {
    bodies: new Set(),
    parsed: new Set(),
    uuidParams: new Set(),
    queryNames: new Set(),
    calls: new Set(),
    guard: guardOf(source, start),
  };
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      if (ts.isIdentifier(callee)) {
        usage.calls.add(callee.text);
        if (callee.text === "readJson" && n.arguments[1] && ts.isIdentifier(n.arguments[1]))
          usage.bodies.add(n.arguments[1].text);
        const param = paramName(n.arguments[0]);
        if (callee.text === "uuidOr404" && param) usage.uuidParams.add(param);
      }
      if (ts.isPropertyAccessExpression(callee)) {
        const method = callee.name.text;
        if ((method === "parse" || method === "safeParse") && ts.isIdentifier(callee.expression))
          usage.parsed.add(callee.expression.text);
        // z.uuid().safeParse(params.id)
        const param = paramName(n.arguments[0]);
        if (method === "safeParse" && param && callee.expression.getText(source.sf) === "z.uuid()")
          usage.uuidParams.add(param);
        const arg = n.arguments[0];
        if (
          (method === "get" || method === "has") &&
          callee.expression.getText(source.sf).endsWith("searchParams") &&
          arg &&
          ts.isStringLiteral(arg)
        )
          usage.queryNames.add(arg.text);
      }
    }
    ts.forEachChild(n, visit);
  };
  for (const node of reachable(source, start)) visit(node);
  return usage;
}

/** The value an identifier of a route names: an imported module's export (a local schema is reported). */
async function exportNamed(source: Source, name: string): Promise<unknown> {
  const imported = source.imports.get(name);
  if (!imported) {
    const decl = source.decls.get(name);
    if (decl?.getText(source.sf).startsWith("z."))
      throw new Error(
        `${source.file}: the schema ${name} is local to the route; put it in its feature's contracts.ts so the OpenAPI document can name the same object`,
      );
    return undefined;
  }
  const spec = imported.module.startsWith("@/")
    ? path.join(ROOT, imported.module.slice(2))
    : imported.module.startsWith(".")
      ? path.join(ROOT, path.dirname(source.file), imported.module)
      : imported.module;
  const mod = (await import(/* @vite-ignore */ spec)) as Record<string, unknown>;
  return mod[imported.name];
}

const isZod = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

/** Every zod object an operation names for its request: body, query, path, their fields. */
function requestSchemas(op: Operation): Set<unknown> {
  const found = new Set<unknown>();
  if (op.body?.schema) found.add(op.body.schema);
  for (const group of [op.params?.path, op.params?.query, op.params?.headers]) {
    if (!group) continue;
    found.add(group);
    for (const field of Object.values(group.shape)) {
      found.add(field);
      // A field made optional is the same check: compare what it wraps as well.
      if (field instanceof z.ZodOptional) found.add(field.unwrap());
    }
  }
  return found;
}

const document = openApiDocument();
const docOperation = (op: Operation) =>
  document.paths[op.path]?.[op.method.toLowerCase()] as
    | { parameters?: { name: string; in: string; schema: { format?: string } }[] }
    | undefined;

type Analysed = { file: string; method: string; usage: Usage; ops: Operation[] };
const analysed: Analysed[] = [];
const files = routeFiles().sort();

beforeAll(() => {
  for (const file of files) {
    const source = readSource(file);
    for (const [method, node] of source.exported) {
      if (!METHODS.includes(method)) continue;
      analysed.push({
        file,
        method,
        usage: usageOf(source, node),
        ops: operations.filter((op) => op.route === file && op.method === method && !op.handledIn),
      });
    }
  }
  // A route that delegates (the /v1 catch-all to the CI gate's handler): the delegate's exports, read alike.
  for (const file of new Set(operations.flatMap((op) => (op.handledIn ? [op.handledIn] : [])))) {
    const source = readSource(file);
    for (const [name, node] of source.exported)
      analysed.push({
        file,
        method: name,
        usage: usageOf(source, node),
        ops: operations.filter((op) => op.handledIn === file),
      });
  }
});

describe("the OpenAPI document covers every route", () => {
  it("finds the routes to check", () => {
    expect(files.length).toBeGreaterThanOrEqual(54);
  });

  it("has an operation for every method every route.ts exports", () => {
    const missing: string[] = [];
    for (const file of files) {
      const source = readSource(file);
      const { path: expected, catchAll } = pathOf(file);
      for (const method of source.exported.keys()) {
        if (!METHODS.includes(method)) continue;
        const ops = operations.filter((op) => op.route === file && op.method === method);
        if (!ops.length) missing.push(`${method} ${file}`);
        for (const op of ops) {
          const fits = catchAll ? op.path.startsWith(expected) : op.path === expected;
          if (!fits) missing.push(`${method} ${file} is documented at ${op.path}, not under ${expected}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("documents no route or method that does not exist", () => {
    const stale = operations.flatMap((op) => {
      const source = files.includes(op.route) ? readSource(op.route) : null;
      return source?.exported.has(op.method) ? [] : [`${op.method} ${op.path} (${op.route})`];
    });
    expect(stale).toEqual([]);
  });

  it("gives every operation a unique id, and describes each path and method once", () => {
    const ids = operations.map((op) => op.operationId);
    expect(ids.length).toBe(new Set(ids).size);
    const keys = operations.map((op) => `${op.method} ${op.path}`);
    expect(keys.length).toBe(new Set(keys).size);
  });
});

describe("the OpenAPI document says what the routes validate", () => {
  it("names the very zod object each route reads its body with", async () => {
    const wrong: string[] = [];
    for (const { file, method, usage, ops } of analysed) {
      for (const name of usage.bodies) {
        const schema = await exportNamed(readSource(file), name);
        if (!ops.some((op) => op.body?.schema === schema))
          wrong.push(`${method} ${file}: readJson(req, ${name}) is not the body the document gives`);
      }
      // The other way: a documented JSON body the wrapped handler never reads.
      if (usage.guard && !file.startsWith("features/"))
        for (const op of ops)
          if (op.body?.contentType === "application/json" && !usage.bodies.size)
            wrong.push(`${op.method} ${op.path}: documented with a JSON body the route does not read`);
    }
    expect(wrong).toEqual([]);
  });

  it("names the very zod object each route parses a query or a path segment with", async () => {
    const wrong: string[] = [];
    for (const { file, method, usage, ops } of analysed)
      for (const name of usage.parsed) {
        const schema = await exportNamed(readSource(file), name);
        if (!isZod(schema) || usage.bodies.has(name)) continue;
        if (!ops.some((op) => requestSchemas(op).has(schema)))
          wrong.push(`${method} ${file}: ${name}.parse/safeParse is not in the document's request`);
      }
    expect(wrong).toEqual([]);
  });

  it("declares every query parameter a route reads", () => {
    const wrong: string[] = [];
    for (const { file, method, usage, ops } of analysed)
      for (const name of usage.queryNames)
        if (!ops.some((op) => op.params?.query && name in op.params.query.shape))
          wrong.push(`${method} ${file} reads ?${name}, which no operation of it declares`);
    expect(wrong).toEqual([]);
  });

  it("gives a path parameter the route checks as a UUID the uuid format", () => {
    const wrong: string[] = [];
    for (const { method, usage, ops } of analysed)
      for (const name of usage.uuidParams)
        for (const op of ops) {
          const param = docOperation(op)?.parameters?.find((p) => p.in === "path" && p.name === name);
          if (param?.schema.format !== "uuid")
            wrong.push(`${method} ${op.path}: {${name}} is checked as a UUID`);
        }
    expect(wrong).toEqual([]);
  });

  it("gives each operation the guard its route is wrapped in", () => {
    const wrong: string[] = [];
    for (const { file, method, usage, ops } of analysed) {
      const guard = usage.calls.has("findApiKey") || usage.calls.has("checkApiKey") ? "api-key" : usage.guard;
      if (!guard) continue;
      for (const op of ops)
        if (op.guard !== guard)
          wrong.push(`${method} ${file}: wrapped as ${guard}, documented as ${op.guard}`);
    }
    expect(wrong).toEqual([]);
  });

  it("says which operations act in the active tenant", () => {
    const wrong: string[] = [];
    for (const { file, method, usage, ops } of analysed) {
      if (file.startsWith("features/")) continue;
      const needs = [...TENANT_CALLS].some((call) => usage.calls.has(call));
      for (const op of ops)
        if (Boolean(op.tenant) !== needs)
          wrong.push(`${method} ${op.path}: ${needs ? "needs" : "does not need"} an active tenant`);
    }
    expect(wrong).toEqual([]);
  });

  it("gives examples that fit their schemas", () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const contents = [op.body, ...Object.values(op.answers).map((a) => a.content)];
      for (const content of contents)
        if (content?.schema && content.example !== undefined) {
          const parsed = content.schema.safeParse(content.example);
          if (!parsed.success) wrong.push(`${op.method} ${op.path}: ${z.prettifyError(parsed.error)}`);
        }
      if (op.body?.contentType === "application/json" && op.body.example === undefined)
        wrong.push(`${op.method} ${op.path}: its body has no example`);
      const dialect = op.errorDialect;
      if (dialect === "text") continue;
      const schema = {
        app: appError,
        openai: openAIError,
        anthropic: anthropicError,
        "json-rpc": jsonRpcError,
      }[dialect];
      for (const status of Object.keys(errorsOf(op)))
        if (!schema.safeParse(errorExample(dialect, Number(status), "why")).success)
          wrong.push(`${op.method} ${op.path}: its ${status} example is not ${dialect}'s error shape`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("the OpenAPI document is valid OpenAPI 3.1", () => {
  it("says it is 3.1", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it("passes the OpenAPI 3.1 schema and the parser's rules (refs, path parameters, unique ids)", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it("resolves every $ref", () => {
    const unresolved: string[] = [];
    const walk = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object")
        for (const [key, inner] of Object.entries(value)) {
          if (key === "$ref" && typeof inner === "string") {
            const target = inner
              .replace(/^#\//, "")
              .split("/")
              .reduce<unknown>(
                (at, part) =>
                  (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")],
                document,
              );
            if (!inner.startsWith("#/") || target === undefined) unresolved.push(inner);
          } else walk(inner);
        }
    };
    walk(document);
    expect(unresolved).toEqual([]);
  });

  it("declares every path parameter, and only those", () => {
    const wrong: string[] = [];
    for (const [route, methods] of Object.entries(document.paths)) {
      const inPath = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries(methods)) {
        const declared = (op.parameters ?? [])
          .filter((p) => p.in === "path")
          .map((p) => p.name as string)
          .sort();
        if (JSON.stringify(inPath) !== JSON.stringify(declared))
          wrong.push(`${method} ${route}: path has ${inPath}, parameters ${declared}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("GET /api/openapi.json", () => {
  it("answers the document, without a session", async () => {
    const { GET } = await import("@/app/api/openapi.json/route");
    const res = await GET(new Request("http://localhost/api/openapi.json"), { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as typeof document;
    expect(body.openapi).toBe(document.openapi);
    expect(Object.keys(body.paths)).toEqual(Object.keys(document.paths));
  });
});

describe("the rendered reference (/docs/api)", () => {
  it("shows every operation, with no script", () => {
    const html = renderToStaticMarkup(createElement(ApiReference, { doc: document }));
    const missing = operations
      .filter((op) => !html.includes(`id="${op.operationId}"`))
      .map((op) => op.operationId);
    expect(missing).toEqual([]);
    expect(html).not.toContain("<script");
    expect(html).toContain('href="/api/openapi.json"');
  });
});

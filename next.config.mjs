import { readFileSync } from "node:fs";

// The security headers of every response (pages, /api, /v1, static files). proxy.ts replaces the CSP of the
// dynamic responses with one carrying the request's nonce; lower-case names, so its value replaces this one.
const securityHeaders = JSON.parse(
  readFileSync(new URL("./lib/http/security-headers.json", import.meta.url), "utf8"),
);

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The container image runs .next/standalone/server.js (a traced, minimal node_modules): its build sets
  // TOLLGATE_STANDALONE=1 (the Dockerfile, and CI's standalone check). Otherwise the build is for `next start`, which
  // refuses to be quiet about a standalone output (it prints a warning on every start).
  ...(process.env.TOLLGATE_STANDALONE === "1" ? { output: "standalone" } : {}),
  // Read from the working directory at run time (the standalone server runs in .next/standalone): migrations,
  // page schemas and the JSON Schemas that validate them and the gateway config, and PGlite's WASM and data; the
  // code sandbox's worker script, which a worker thread loads as a file with QuickJS's WASM beside it.
  outputFileTracingIncludes: {
    "/**": [
      "./db/migrations/**/*",
      "./schemas/**/*",
      "./node_modules/@electric-sql/pglite/dist/**/*",
      "./lib/agent/code/sandbox-worker.mjs",
      "./node_modules/quickjs-emscripten/**/*",
      "./node_modules/quickjs-emscripten-core/**/*",
      "./node_modules/@jitl/quickjs-ffi-types/**/*",
      "./node_modules/@jitl/quickjs-wasmfile-release-sync/**/*",
    ],
  },
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled; unpdf (PDF.js,
  // 1.7 MB, importing itself dynamically) is loaded from node_modules when the first PDF is uploaded; the MCP SDK
  // (subpath exports, and one copy of its error classes for every route) is loaded from node_modules too.
  // So are the metrics registry and the OpenTelemetry SDK (one tracer provider, one global API).
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pino",
    "postgres",
    "bcryptjs",
    "unpdf",
    "@modelcontextprotocol/sdk",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  experimental: {
    authInterrupts: true,
    // proxy.ts makes Next buffer request bodies, silently cutting them at this size (10 MB by default); an upload
    // (a 10 MB file plus its form) must arrive whole, and the route refuses anything past 10.25 MB itself.
    proxyClientMaxBodySize: "11mb",
  },
  poweredByHeader: false,
  // `npm test` runs `tsc --noEmit` over the whole tree (tests too); the build need not do it a second time.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: Object.entries(securityHeaders).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

export default nextConfig;

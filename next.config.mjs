import { readFileSync } from "node:fs";

// The security headers of every response (pages, /api, /v1, static files). proxy.ts replaces the CSP of the
// dynamic responses with one carrying the request's nonce; lower-case names, so its value replaces this one.
const securityHeaders = JSON.parse(
  readFileSync(new URL("./lib/http/security-headers.json", import.meta.url), "utf8"),
);

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pino", "postgres", "bcryptjs"],
  experimental: { authInterrupts: true },
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

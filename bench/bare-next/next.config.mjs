import { readFileSync } from "node:fs";

// The benchmark's bare Next app (bench/gateway-overhead.ts): one route that only forwards, the baseline for the
// product's /v1. It sends the product's security headers too, so the two differ only in what /v1 itself does.
// Built with `next build --webpack bench/bare-next`: Turbopack takes the repository as its workspace root (where
// node_modules is) and would then compile the product's instrumentation.ts and proxy.ts into this app too.
const securityHeaders = JSON.parse(
  readFileSync(new URL("../../lib/http/security-headers.json", import.meta.url), "utf8"),
);

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
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

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pino", "postgres", "bcryptjs"],
  experimental: { authInterrupts: true },
  poweredByHeader: false,
  // `npm test` runs `tsc --noEmit` over the whole tree (tests too); the build need not do it a second time.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;

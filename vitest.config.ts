import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": import.meta.dirname,
      // `server-only` throws outside React's server condition; every test here is server code.
      "server-only": `${import.meta.dirname}/node_modules/server-only/empty.js`,
    },
  },
  test: {
    include: [
      "tests/unit/**/*.test.ts",
      "tests/integration/**/*.test.ts",
      "tests/security/**/*.test.ts",
      "tests/docs/**/*.test.ts",
    ],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each own a database; two workers match the two cores.
    maxWorkers: 2,
    // next-auth imports "next/server" without an extension; inlining lets Vite resolve it.
    server: { deps: { inline: ["next-auth", "@auth/core"] } },
  },
});

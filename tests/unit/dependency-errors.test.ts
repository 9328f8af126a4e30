import { describe, expect, it } from "vitest";
import {
  countRefusal,
  DependencyError,
  dependencyFailure,
  markDependency,
} from "@/lib/core/errors/dependency";
import { TollgateMetrics } from "@/lib/observability/metrics";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("dependencyFailure", () => {
  it("names the database for connection errors, PostgreSQL's shutdown and timeout states, through Drizzle's wrap", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "CONNECT_TIMEOUT",
      "CONNECTION_CLOSED",
      "CONNECTION_ENDED",
    ])
      expect(dependencyFailure(withCode(code))).toEqual({ dependency: "database", cause: code });
    for (const code of ["57P01", "57P03", "53300", "57014", "08006", "08001"])
      expect(dependencyFailure(withCode(code))).toEqual({ dependency: "database", cause: code });
    const wrapped = new Error("Failed query: select 1", {
      cause: withCode("57P01", "terminating connection"),
    });
    expect(dependencyFailure(wrapped)).toEqual({ dependency: "database", cause: "57P01" });
    // The vendored driver's dropped out-of-step connection and full-pool wait: retried as outages.
    for (const code of ["CONNECTION_DESYNC", "ACQUIRE_TIMEOUT", "DATABASE_SILENT"])
      expect(dependencyFailure(new Error("Failed query", { cause: withCode(code) }))).toEqual({
        dependency: "database",
        cause: code,
      });
    // As Auth.js wraps what its credentials callback met: { cause: { err } }.
    const signIn = new Error("Read more at https://errors.authjs.dev#callbackrouteerror", {
      cause: { err: new Error("Failed query", { cause: withCode("ECONNREFUSED") }) },
    });
    expect(dependencyFailure(signIn)).toEqual({ dependency: "database", cause: "ECONNREFUSED" });
    expect(dependencyFailure(new AggregateError([withCode("ECONNREFUSED")]))).toEqual({
      dependency: "database",
      cause: "ECONNREFUSED",
    });
  });

  it("names Redis for ioredis's offline refusals and for errors marked as Redis's", () => {
    expect(
      dependencyFailure(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
    ).toEqual({
      dependency: "redis",
      cause: "connection",
    });
    expect(dependencyFailure(new DependencyError("redis", "timeout"))).toEqual({
      dependency: "redis",
      cause: "timeout",
    });
  });

  it("leaves everything else to the caller: bugs, constraint violations, bad input", () => {
    expect(dependencyFailure(new TypeError("x is undefined"))).toBeNull();
    expect(dependencyFailure(withCode("23505", "duplicate key"))).toBeNull();
    expect(dependencyFailure(withCode("22P02", "invalid input syntax"))).toBeNull();
    expect(dependencyFailure("ECONNREFUSED")).toBeNull();
    expect(dependencyFailure(null)).toBeNull();
    // A cycle of causes ends.
    const a: Error & { cause?: unknown } = new Error("a");
    a.cause = a;
    expect(dependencyFailure(a)).toBeNull();
  });
});

describe("dependency metrics", () => {
  it("shows each dependency's last check and the refusals by cause when scraped", async () => {
    const metrics = new TollgateMetrics({ defaultMetrics: false });
    markDependency("database", false);
    markDependency("redis", true);
    countRefusal({ dependency: "database", cause: "ECONNREFUSED" });
    countRefusal({ dependency: "database", cause: "ECONNREFUSED" });
    countRefusal({ dependency: "redis", cause: "timeout" });
    const { body } = await metrics.scrape();
    expect(body).toContain('tollgate_dependency_up{dependency="database"} 0');
    expect(body).toContain('tollgate_dependency_up{dependency="redis"} 1');
    expect(body).toMatch(
      /tollgate_dependency_refusals_total\{dependency="database",cause="ECONNREFUSED"\} [2-9]/,
    );
    expect(body).toContain('tollgate_dependency_refusals_total{dependency="redis",cause="timeout"}');
    markDependency("database", true);
    expect((await metrics.scrape()).body).toContain('tollgate_dependency_up{dependency="database"} 1');
  });
});

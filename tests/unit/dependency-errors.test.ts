import { describe, expect, it } from "vitest";
import { DependencyError, dependencyFailure } from "@/lib/core/errors/dependency";

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

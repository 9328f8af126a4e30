// The dependency deadlines read from the environment: the documented defaults when unset, the value when it is a
// whole number in range, and the default (never a zero that would turn a deadline off by accident) when not.
import { describe, expect, it } from "vitest";
import { databaseDeadlinesFromEnv, databaseOptionsFromEnv } from "@/db/client";
import { redisDeadlinesFromEnv } from "@/lib/pipeline/redis";

describe("dependency deadlines from the environment", () => {
  it("defaults to 15 s statements, 5 s of silence, a 2 s probe, 10 s connects and waits, 2 s Redis commands", () => {
    expect(databaseDeadlinesFromEnv({})).toEqual({
      statementTimeoutMs: 15_000,
      silenceMs: 5_000,
      probeMs: 2_000,
      connectTimeoutMs: 10_000,
      acquireTimeoutMs: 10_000,
    });
    expect(redisDeadlinesFromEnv({})).toEqual({ commandTimeoutMs: 2_000, connectTimeoutMs: 2_000 });
  });

  it("takes whole numbers in range, and 0 only for the statement timeout and the acquire wait", () => {
    expect(
      databaseDeadlinesFromEnv({
        DB_STATEMENT_TIMEOUT_MS: "0",
        DB_SILENCE_MS: "800",
        DB_PROBE_TIMEOUT_MS: "300",
        DB_CONNECT_TIMEOUT_MS: "4000",
        DB_ACQUIRE_TIMEOUT_MS: "0",
      }),
    ).toEqual({
      statementTimeoutMs: 0,
      silenceMs: 800,
      probeMs: 300,
      connectTimeoutMs: 4_000,
      acquireTimeoutMs: 0,
    });
    expect(
      redisDeadlinesFromEnv({ REDIS_COMMAND_TIMEOUT_MS: "750", REDIS_CONNECT_TIMEOUT_MS: "1500" }),
    ).toEqual({
      commandTimeoutMs: 750,
      connectTimeoutMs: 1_500,
    });
  });

  it("keeps the default for a value that is not a whole number or below the floor", () => {
    expect(
      databaseDeadlinesFromEnv({
        DB_STATEMENT_TIMEOUT_MS: "-1",
        DB_SILENCE_MS: "0",
        DB_PROBE_TIMEOUT_MS: "2.5",
        DB_CONNECT_TIMEOUT_MS: "soon",
        DB_ACQUIRE_TIMEOUT_MS: "-5",
      }),
    ).toEqual({
      statementTimeoutMs: 15_000,
      silenceMs: 5_000,
      probeMs: 2_000,
      connectTimeoutMs: 10_000,
      acquireTimeoutMs: 10_000,
    });
    expect(redisDeadlinesFromEnv({ REDIS_COMMAND_TIMEOUT_MS: "0", REDIS_CONNECT_TIMEOUT_MS: "" })).toEqual({
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
  });

  it("gives a PostgreSQL URL its deadlines", () => {
    expect(
      databaseOptionsFromEnv({
        DATABASE_URL: "postgres://db/x",
        DB_SILENCE_MS: "900",
      } as Partial<NodeJS.ProcessEnv> as NodeJS.ProcessEnv),
    ).toMatchObject({
      kind: "postgres",
      deadlines: { silenceMs: 900, statementTimeoutMs: 15_000 },
    });
  });
});

// A call's limits while the database does not answer: the policy this process read last stands in (for a while),
// and without one the call is refused with a 503, never let through without its limits (a hard budget was passed
// that way during a PostgreSQL outage: issue 39).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { invalidatePolicy, loadPolicy } from "@/lib/pipeline/policy";
import { useSeededAppDatabase } from "../helpers/app-db";

/** A database whose every query fails as a refused connection does (postgres-js: ECONNREFUSED). */
const away = (() => {
  const refused = () =>
    Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
  const chain: unknown = new Proxy(() => {}, {
    get: (_t, key) =>
      key === "then" ? (ok: unknown, fail: (e: unknown) => void) => refused().then(ok as never, fail) : chain,
    apply: () => chain,
  });
  return chain as Database;
})();

describe("a call's limits while the database is away", () => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let tenantId: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase("pglite");
    tenantId = await app.tenantId("acme");
  });
  afterAll(async () => {
    invalidatePolicy();
    await app.close();
  });

  it("serves the policy read last for up to 10 minutes past its 5 s, then refuses", async () => {
    invalidatePolicy();
    const caller = {
      tenantId,
      apiKeyId: null,
      userId: await app.userId("admin@acme.test"),
      source: "drawer" as const,
    };
    const t0 = 1_000_000;
    const read = await loadPolicy(app.db, caller, t0);
    expect(await loadPolicy(away, caller, t0 + 60_000)).toBe(read);
    expect(await loadPolicy(away, caller, t0 + 5_000 + 10 * 60_000)).toBe(read);
    await expect(loadPolicy(away, caller, t0 + 5_000 + 10 * 60_000 + 1)).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
    // A change heard here clears it: nothing stands in, the read's failure is the answer.
    invalidatePolicy(tenantId);
    await expect(loadPolicy(away, caller, t0 + 1_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("without a policy to stand in, a call is refused with a 503 and Retry-After, not sent", async () => {
    invalidatePolicy();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: "http://127.0.0.1:9/v1" } },
          models: { fast: { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
        },
        "test",
        {},
      ),
    );
    const db = async () => away;
    const pipeline = new Pipeline({
      db,
      gateway: () => gateway,
      counters: () => new PostgresCounters(db),
      cache: () => new PostgresResponseCache(db),
    });
    const caller = {
      tenantId,
      apiKeyId: null,
      userId: await app.userId("admin@acme.test"),
      source: "drawer" as const,
    };
    const events = [];
    for await (const e of pipeline.run(
      caller,
      { model: "fast", messages: [{ role: "user", content: "hi" }] },
      { stream: false },
    ))
      events.push(e);
    expect(events).toEqual([
      expect.objectContaining({
        type: "error",
        error: expect.objectContaining({ class: "policy_unavailable", status: 503, retryAfterSeconds: 2 }),
      }),
    ]);
    expect(await pipeline.admit(caller)).toEqual([
      expect.objectContaining({
        type: "error",
        error: expect.objectContaining({ class: "policy_unavailable" }),
      }),
    ]);
  });
});

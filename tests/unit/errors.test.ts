import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, toErrorResponse } from "@/lib/core/errors/app-error";
import { readJson, route } from "@/lib/http/route";

describe("the error model", () => {
  it("keeps an AppError's code, status and message, and its Retry-After", () => {
    const answer = toErrorResponse(
      new AppError("rate_limited", "slow down", { retryAfterSeconds: 30 }),
      "req-1",
    );
    expect(answer.status).toBe(429);
    expect(answer.headers["retry-after"]).toBe("30");
    expect(answer.body.error).toMatchObject({
      code: "rate_limited",
      message: "slow down",
      requestId: "req-1",
    });
  });

  it("turns a zod failure into 422 naming each field", () => {
    const parsed = z.object({ email: z.email(), age: z.number().min(0) }).safeParse({ email: "x", age: -1 });
    const answer = toErrorResponse(parsed.error, "req-2");
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.fields ?? {}).sort()).toEqual(["age", "email"]);
  });

  it("hides an unknown error's detail behind a 500 with the request id", () => {
    const answer = toErrorResponse(new Error("connection string postgres://u:secret@db"), "req-3");
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).not.toContain("secret");
    expect(answer.body.error.message).toContain("req-3");
  });

  it("answers a database that is away with 503 and Retry-After, and says nothing of its address", () => {
    const driver = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432 postgres://u:secret@db"), {
      code: "ECONNREFUSED",
    });
    const answer = toErrorResponse(new Error("Failed query: select …", { cause: driver }), "req-4");
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("2");
    expect(answer.body.error.code).toBe("unavailable");
    expect(answer.body.error.message).toContain("briefly unavailable");
    expect(JSON.stringify(answer.body)).not.toContain("secret");
    expect(JSON.stringify(answer.body)).not.toContain("10.0.0.5");
  });

  it("wrapped handlers answer bad JSON with 400 and thrown errors in the one shape", async () => {
    const handler = route(async (req) => Response.json(await readJson(req, z.object({ n: z.number() }))));
    const post = (body: string) =>
      handler(new Request("http://x/", { method: "POST", body }), { params: Promise.resolve({}) });
    const notJson = await post("{oops");
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.message).toMatch(/must be JSON/);
    const invalid = await post(JSON.stringify({ n: "one" }));
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("x-request-id")).toBeTruthy();
    const ok = await post(JSON.stringify({ n: 1 }));
    expect(await ok.json()).toEqual({ n: 1 });

    const crash = await route(async () => {
      throw new TypeError("boom at line 12");
    })(new Request("http://x/"), { params: Promise.resolve({}) });
    expect(crash.status).toBe(500);
    expect(await crash.text()).not.toContain("boom");
  });
});

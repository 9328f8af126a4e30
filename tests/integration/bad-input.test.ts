import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appUser, sysAgentTurn } from "@/db/schema";
import type { PageSchema } from "@/features/admin-tables/contracts";
import { csvStream, encodeCursor } from "@/features/admin-tables/server/query";
import type { SessionClaims } from "@/lib/auth/session";
import { AppError } from "@/lib/core/errors/app-error";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaParams } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
vi.mock("@/lib/auth", () => ({ unstable_update: async () => null }));

const routes = {
  schema: await import("@/app/api/schema/[key]/[[...action]]/route"),
  limits: await import("@/app/api/governance/limits/route"),
  settings: await import("@/app/api/governance/settings/route"),
  keys: await import("@/app/api/keys/route"),
  key: await import("@/app/api/keys/[id]/route"),
  tenants: await import("@/app/api/admin/tenants/route"),
  tenant: await import("@/app/api/admin/tenants/[id]/route"),
  member: await import("@/app/api/admin/members/[userId]/route"),
  invitations: await import("@/app/api/admin/invitations/route"),
  invitation: await import("@/app/api/admin/invitations/[id]/route"),
  signIn: await import("@/app/api/admin/sign-in-settings/route"),
  webFetch: await import("@/app/api/admin/web-fetch-settings/route"),
  conversations: await import("@/app/api/agent/conversations/route"),
  conversation: await import("@/app/api/agent/conversations/[id]/route"),
  turn: await import("@/app/api/agent/turns/[id]/route"),
  stop: await import("@/app/api/agent/turns/[id]/stop/route"),
  session: await import("@/app/api/session/tenant/route"),
  accept: await import("@/app/api/invitations/[token]/accept/route"),
};

type Handler = (req: Request, segment: { params: Promise<never> }) => Promise<Response>;
// rootAcme: the super admin with Acme as the active tenant (what tenant routes for the super admin act on).
type Who = "admin" | "root" | "rootAcme";
/** One hostile request and the answer it must get: a 4xx in the documented shape, never a 500. */
type Case = {
  name: string;
  as?: Who;
  handler: Handler;
  method?: string;
  params?: Record<string, unknown>;
  path?: string;
  /** A value sent as JSON, or a string sent as is. */
  body?: unknown;
  raw?: boolean;
  status: number;
  code: string;
  /** A field named in `fields`, or a fragment of the message. */
  names?: string;
};

const b64 = (text: string) => Buffer.from(text).toString("base64url");
const limits = (values: Record<string, unknown>) => ({ scope: "tenant", dailyHardUsd: "10", ...values });
const schemaGet = (path: string): Pick<Case, "handler" | "params" | "path"> => ({
  handler: routes.schema.GET as Handler,
  params: schemaParams(path),
  path,
});

const limitCases: Case[] = [
  ...[
    ["a soft limit above the hard one", { dailySoftUsd: "20" }],
    ["a soft limit that is not a number", { dailySoftUsd: "abc" }],
    ["a negative soft limit", { dailySoftUsd: "-1" }],
    ["a soft limit in exponent notation", { dailySoftUsd: "1e3" }],
    ["a soft limit with too many decimals", { dailySoftUsd: "1.12345678901" }],
    ["a huge soft limit", { dailySoftUsd: "1".repeat(400) }],
    ["a soft limit sent as a number", { dailySoftUsd: 5 }],
    ["a soft limit sent as an object", { dailySoftUsd: { amount: 5 } }],
    ["an empty soft limit", { dailySoftUsd: "" }],
  ].map(
    ([name, values]): Case => ({
      name: `limits: ${name} beside a valid hard one`,
      handler: routes.limits.PUT as Handler,
      method: "PUT",
      body: limits(values as Record<string, unknown>),
      status: 422,
      code: "validation_failed",
      names: "dailySoftUsd",
    }),
  ),
  {
    name: "limits: a monthly hard limit that is not a number beside a valid soft one",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: { scope: "tenant", monthlySoftUsd: "5", monthlyHardUsd: "lots" },
    status: 422,
    code: "validation_failed",
    names: "monthlyHardUsd",
  },
  {
    name: "limits: an unknown scope",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: limits({ scope: "planet" }),
    status: 422,
    code: "validation_failed",
    names: "scope",
  },
  {
    name: "limits: a fractional requests-per-minute",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: limits({ requestsPerMinute: 1.5 }),
    status: 422,
    code: "validation_failed",
    names: "requestsPerMinute",
  },
  {
    name: "limits: a requests-per-minute past any integer column",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: limits({ requestsPerMinute: 1e300 }),
    status: 422,
    code: "validation_failed",
    names: "requestsPerMinute",
  },
  {
    name: "limits: a subject id that is not a UUID",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: limits({ scope: "key", subjectId: "12" }),
    status: 422,
    code: "validation_failed",
    names: "subjectId",
  },
  {
    name: "limits: an array for the body",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: [limits({})],
    status: 422,
    code: "validation_failed",
  },
  {
    name: "limits: a body that is not JSON",
    handler: routes.limits.PUT as Handler,
    method: "PUT",
    body: "{scope:",
    raw: true,
    status: 400,
    code: "bad_request",
  },
];

const dateCases: Case[] = [
  ["agent-turns/rows?f.startedAt.from=2026-02-31", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.to=2026-02-30", "f.startedAt.to"],
  ["agent-turns/metrics?f.startedAt.from=2025-02-29", "f.startedAt.from"],
  ["agent-cost/series?chart=costByModel&f.day.from=2026-04-31", "f.day.from"],
  ["agent-turns/count?f.startedAt.from=2026-00-10", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.from=0000-01-01", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.from=2026-01-01T25:00:00Z", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.from=2026-01-01T10:00:00", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.from=+275760-09-13", "f.startedAt.from"],
  ["agent-turns/rows?f.startedAt.from=2026-03-02&f.startedAt.to=2026-03-01", "f.startedAt.from"],
  ["agent-audit/rows?f.createdAt.from=2026-02-31", "f.createdAt.from"],
  ["agent-cost/series?chart=costByDay&f.day.to=2026-06-31", "f.day.to"],
  ["admin-changes/rows?f.createdAt.from=2026-11-31", "f.createdAt.from"],
].map(([path, field]) => ({
  name: `schema: ${path}`,
  ...schemaGet(path!),
  status: 422,
  code: "validation_failed",
  names: field,
}));

const cursorCases: Case[] = [
  ["random bytes", b64("\x8f\x00\xffgarbage")],
  ["not base64 at all", "%%%%"],
  ["valid base64 of an object", b64(JSON.stringify({ at: "x", id: "y" }))],
  ["valid base64 of wrong types", b64(JSON.stringify([1, 2]))],
  ["an id that is not a UUID", encodeCursor(["2026-01-01T00:00:00.000Z", "nope"])],
  ["a time that is not a time", encodeCursor(["yesterday", "0190a000-0000-7000-8000-000000000000"])],
  ["a huge number for an integer sort", encodeCursor(["1e400", "0190a000-0000-7000-8000-000000000000"])],
  ["a NUL byte", encodeCursor(["a\u0000", "0190a000-0000-7000-8000-000000000000"])],
].flatMap(([name, cursor]) => [
  {
    name: `schema: a cursor with ${name}`,
    ...schemaGet(
      `agent-turns/rows?${name!.includes("integer") ? "sort=inputTokens:desc&" : ""}cursor=${encodeURIComponent(cursor!)}`,
    ),
    status: 400,
    code: "bad_request",
    names: "cursor",
  },
]);

const otherSchemaCases: Case[] = [
  {
    name: "schema: a CSV export with a filter the provider does not know",
    ...schemaGet("agent-turns/export?f.nope=1"),
    status: 422,
    code: "validation_failed",
    names: "f.nope",
  },
  {
    name: "schema: a CSV export with a date that does not exist",
    ...schemaGet("agent-audit/export?f.createdAt.to=2026-02-29"),
    status: 422,
    code: "validation_failed",
    names: "f.createdAt.to",
  },
  {
    name: "schema: a CSV export with a crafted cursor",
    ...schemaGet(`agent-turns/export?cursor=${b64("[1,")}`),
    status: 400,
    code: "bad_request",
    names: "cursor",
  },
  {
    name: "schema: a CSV export of the tool catalog with an unknown filter",
    ...schemaGet("agent-tools/export?f.nope=1"),
    status: 422,
    code: "validation_failed",
    names: "f.nope",
  },
  {
    name: "schema: a cursor with valid base64 of wrong JSON on the in-memory tool catalog",
    ...schemaGet(`agent-tools/rows?cursor=${b64("{nope")}`),
    status: 400,
    code: "bad_request",
    names: "cursor",
  },
  {
    name: "schema: a cursor with a negative offset on the tool catalog",
    ...schemaGet(`agent-tools/rows?cursor=${encodeCursor(["offset", "-5"])}`),
    status: 400,
    code: "bad_request",
    names: "cursor",
  },
  {
    name: "schema: a text filter with a NUL byte",
    ...schemaGet("agent-turns/rows?f.servedModel=gpt%00"),
    status: 422,
    code: "validation_failed",
    names: "f.servedModel",
  },
  {
    name: "schema: a turn id filter that is not a UUID",
    ...schemaGet("agent-audit/rows?f.turnId=abc"),
    status: 422,
    code: "validation_failed",
    names: "f.turnId",
  },
  {
    name: "schema: an unknown filter on the tool catalog",
    ...schemaGet("agent-tools/rows?f.nope=1"),
    status: 422,
    code: "validation_failed",
    names: "f.nope",
  },
  ...["constructor", "toString", "hasOwnProperty", "constructor.from", "valueOf.to"].map(
    (filter): Case => ({
      name: `schema: a filter named after an Object method (f.${filter})`,
      ...schemaGet(`agent-turns/rows?f.${filter}=2026-01-01`),
      status: 422,
      code: "validation_failed",
      names: `f.${filter}`,
    }),
  ),
  {
    name: "schema: a filter named __proto__",
    ...schemaGet("agent-turns/rows?f.__proto__=1"),
    status: 422,
    code: "validation_failed",
    names: "f.__proto__",
  },
  {
    name: "schema: a date filter the page does not have",
    ...schemaGet("agent-turns/rows?f.latencyMs.from=2026-01-01"),
    status: 422,
    code: "validation_failed",
    names: "f.latencyMs.from",
  },
  {
    name: "schema: a limit past the maximum",
    ...schemaGet("agent-turns/rows?limit=100000000000000000000"),
    status: 422,
    code: "validation_failed",
    names: "limit",
  },
  {
    name: "schema: a super admin's tenant filter that is not a UUID",
    as: "root",
    ...schemaGet("agent-turns/rows?f.tenantId=acme"),
    status: 422,
    code: "validation_failed",
    names: "f.tenantId",
  },
];

const adminCases: Case[] = [
  {
    name: "keys: a name with a NUL byte",
    handler: routes.keys.POST as Handler,
    method: "POST",
    body: { name: "ci\u0000bot" },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "keys: a name that is an array",
    handler: routes.keys.POST as Handler,
    method: "POST",
    body: { name: ["ci"] },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "keys: a huge name",
    handler: routes.keys.POST as Handler,
    method: "POST",
    body: { name: "k".repeat(100_000) },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "keys: revoking an id that is not a UUID",
    handler: routes.key.DELETE as Handler,
    method: "DELETE",
    params: { id: "../../etc" },
    status: 404,
    code: "not_found",
  },
  {
    name: "tenants: a name with a NUL byte",
    as: "root",
    handler: routes.tenants.POST as Handler,
    method: "POST",
    body: { name: "Evil\u0000Corp" },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "tenants: a slug that is a number",
    as: "root",
    handler: routes.tenants.POST as Handler,
    method: "POST",
    body: { name: "Numbers", slug: 12 },
    status: 422,
    code: "validation_failed",
    names: "slug",
  },
  {
    name: "tenants: a rename with a NUL byte",
    as: "root",
    handler: routes.tenant.PATCH as Handler,
    method: "PATCH",
    params: { id: "$acme" },
    body: { name: "x\u0000" },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "tenants: disabled as a string",
    as: "root",
    handler: routes.tenant.PATCH as Handler,
    method: "PATCH",
    params: { id: "00000000-0000-7000-8000-000000000000" },
    body: { disabled: "yes" },
    status: 422,
    code: "validation_failed",
    names: "disabled",
  },
  {
    name: "members: an unknown role",
    handler: routes.member.PATCH as Handler,
    method: "PATCH",
    params: { userId: "00000000-0000-7000-8000-000000000000" },
    body: { role: "owner" },
    status: 422,
    code: "validation_failed",
    names: "role",
  },
  {
    name: "members: a user id that is not a UUID",
    handler: routes.member.DELETE as Handler,
    method: "DELETE",
    params: { userId: "'; drop table membership; --" },
    status: 404,
    code: "not_found",
  },
  {
    name: "invitations: an email with a NUL byte",
    handler: routes.invitations.POST as Handler,
    method: "POST",
    body: { email: "a\u0000@acme.test" },
    status: 422,
    code: "validation_failed",
    names: "email",
  },
  {
    name: "invitations: a fractional expiry",
    handler: routes.invitations.POST as Handler,
    method: "POST",
    body: { email: "x@acme.test", expiresInDays: 2.5 },
    status: 422,
    code: "validation_failed",
    names: "expiresInDays",
  },
  {
    name: "invitations: accepting with a name that has a NUL byte",
    handler: routes.accept.POST as Handler,
    method: "POST",
    params: { token: "$token" },
    body: { name: "New\u0000Person", password: "a long enough password" },
    status: 422,
    code: "validation_failed",
    names: "name",
  },
  {
    name: "invitations: revoking an id that is not a UUID",
    handler: routes.invitation.DELETE as Handler,
    method: "DELETE",
    params: { id: "1" },
    status: 404,
    code: "not_found",
  },
  {
    name: "sign-in settings: domains as a string",
    as: "rootAcme",
    handler: routes.signIn.PUT as Handler,
    method: "PUT",
    body: { ssoDomains: "example.com" },
    status: 422,
    code: "validation_failed",
    names: "ssoDomains",
  },
  {
    name: "web_fetch settings: an unknown mode",
    handler: routes.webFetch.PUT as Handler,
    method: "PUT",
    body: { mode: "sometimes", domains: [] },
    status: 422,
    code: "validation_failed",
    names: "mode",
  },
  {
    name: "web_fetch settings: allowlist mode without a domain",
    handler: routes.webFetch.PUT as Handler,
    method: "PUT",
    body: { mode: "allowlist", domains: [] },
    status: 422,
    code: "validation_failed",
    names: "domains",
  },
  {
    name: "settings: retention as a string",
    handler: routes.settings.PUT as Handler,
    method: "PUT",
    body: { retentionDays: "30", cacheAliases: [], cacheTtlSeconds: 60 },
    status: 422,
    code: "validation_failed",
    names: "retentionDays",
  },
  {
    name: "settings: a cache alias with a NUL byte",
    handler: routes.settings.PUT as Handler,
    method: "PUT",
    body: { retentionDays: 30, cacheAliases: ["a\u0000"], cacheTtlSeconds: 60 },
    status: 422,
    code: "validation_failed",
    names: "cacheAliases",
  },
  {
    name: "conversations: a limit that is not a number",
    handler: routes.conversations.GET as Handler,
    path: "conversations?limit=many",
    status: 422,
    code: "validation_failed",
    names: "limit",
  },
  {
    name: "conversations: a before that is not a date",
    handler: routes.conversations.GET as Handler,
    path: "conversations?before=soon",
    status: 422,
    code: "validation_failed",
    names: "before",
  },
  {
    name: "conversations: a before outside PostgreSQL's calendar",
    handler: routes.conversations.GET as Handler,
    path: "conversations?before=-271821-04-20T00:00:00Z",
    status: 422,
    code: "validation_failed",
    names: "before",
  },
  {
    name: "conversations: a title with a NUL byte",
    handler: routes.conversations.POST as Handler,
    method: "POST",
    body: { title: "a\u0000b" },
    status: 422,
    code: "validation_failed",
    names: "title",
  },
  {
    name: "conversations: a title that is an object",
    handler: routes.conversations.POST as Handler,
    method: "POST",
    body: { title: { text: "x" } },
    status: 422,
    code: "validation_failed",
    names: "title",
  },
  {
    name: "conversation: a rename with a NUL byte",
    handler: routes.conversation.PATCH as Handler,
    method: "PATCH",
    params: { id: "00000000-0000-7000-8000-000000000000" },
    body: { title: "\u0000" },
    status: 422,
    code: "validation_failed",
    names: "title",
  },
  {
    name: "conversation: an id that is not a UUID",
    handler: routes.conversation.GET as Handler,
    params: { id: "x".repeat(10_000) },
    status: 404,
    code: "not_found",
  },
  {
    name: "turns: an id that is not a UUID",
    handler: routes.turn.GET as Handler,
    params: { id: "1 or 1=1" },
    status: 404,
    code: "not_found",
  },
  {
    name: "session: a tenant id that is a number",
    handler: routes.session.POST as Handler,
    method: "POST",
    body: { tenantId: 1 },
    status: 422,
    code: "validation_failed",
    names: "tenantId",
  },
];

describe.each(testDbKinds)("bad input on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const claims: Partial<Record<Who, SessionClaims>> = {};
  // Params written "$acme" stand for Acme's id, so the bad body, not the id, is what gets refused.
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    for (const [who, email, slug] of [
      ["admin", "admin@acme.test", "acme"],
      ["root", "root@tollgate.test", null],
      ["rootAcme", "root@tollgate.test", "acme"],
    ] as const) {
      const userId = await app.userId(email);
      const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
      claims[who] = { userId, tenantId: slug && (await app.tenantId(slug)), epoch: u!.sessionEpoch };
    }
    // Two pages of turns, so a crafted cursor reaches the keyset query.
    const tenantId = await app.tenantId("acme");
    ids.$acme = tenantId;
    session.claims = claims.admin!;
    const invited = await routes.invitations.POST(
      new Request("http://app.test/api/admin/invitations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "fuzz@acme.test" }),
      }),
      { params: Promise.resolve({}) as Promise<never> },
    );
    ids.$token = ((await invited.json()) as { link: string }).link.split("/invite/")[1]!;
    const userId = claims.admin!.userId;
    await app.db.insert(sysAgentTurn).values(
      Array.from({ length: 3 }, (_, i) => ({
        id: crypto.randomUUID(),
        tenantId,
        userId,
        source: "drawer" as const,
        requestedModel: "offline-demo",
        status: "success" as const,
        inputTokens: i,
        startedAt: new Date(Date.UTC(2026, 1, 1 + i)),
      })),
    );
  });
  afterAll(() => app.close());

  const get = async (path: string) => {
    session.claims = claims.admin!;
    const { handler, params } = schemaGet(path);
    const res = await handler(new Request(`http://app.test/api/schema/${path}`), {
      params: Promise.resolve(params) as Promise<never>,
    });
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };
  const rowIds = async (path: string) => {
    const res = await get(path);
    expect(res.status, res.text).toBe(200);
    return (JSON.parse(res.text) as { rows: { inputTokens: number }[] }).rows.map((r) => r.inputTokens);
  };

  it("reads a day as the whole UTC day, a time as an instant, and pages on with the cursor it gave", async () => {
    expect(await rowIds("agent-turns/rows?f.startedAt.from=2026-02-02&f.startedAt.to=2026-02-02")).toEqual([
      1,
    ]);
    expect(await rowIds("agent-turns/rows?f.startedAt.from=2026-02-28&f.startedAt.to=2026-02-28")).toEqual(
      [],
    );
    expect(
      await rowIds(
        "agent-turns/rows?f.startedAt.from=2026-02-01T12:00:00Z&f.startedAt.to=2026-02-03T00:00:00Z",
      ),
    ).toEqual([2, 1]);
    expect(
      await rowIds("agent-turns/rows?f.startedAt.from=2026-02-02T01:00:00%2B01:00&f.startedAt.to=2026-02-02"),
    ).toEqual([1]);
    const first = JSON.parse((await get("agent-turns/rows?sort=inputTokens:asc&limit=2")).text);
    expect(await rowIds(`agent-turns/rows?sort=inputTokens:asc&limit=2&cursor=${first.nextCursor}`)).toEqual([
      2,
    ]);
  });

  it("exports CSV once the query is known good", async () => {
    const res = await get("agent-turns/export?f.startedAt.from=2026-02-01&f.startedAt.to=2026-02-03");
    expect(res.status).toBe(200);
    expect(res.type).toContain("text/csv");
    expect(res.text.trim().split("\n")).toHaveLength(1 + 3);
  });

  it.each([...limitCases, ...dateCases, ...cursorCases, ...otherSchemaCases, ...adminCases])(
    "$name → $status $code",
    async (c) => {
      session.claims = claims[c.as ?? "admin"]!;
      const init: RequestInit = {
        method: c.method ?? "GET",
        headers: { "content-type": "application/json" },
      };
      if (c.body !== undefined) init.body = c.raw ? String(c.body) : JSON.stringify(c.body);
      const res = await c.handler(new Request(`http://app.test/api/${c.path ?? "x"}`, init), {
        params: Promise.resolve(
          Object.fromEntries(Object.entries(c.params ?? {}).map(([k, v]) => [k, ids[String(v)] ?? v])),
        ) as Promise<never>,
      });
      const body = await res.json();
      expect({ status: res.status, code: body.error?.code }).toEqual({ status: c.status, code: c.code });
      expect(body.error.requestId).toEqual(expect.any(String));
      expect(body.error.message).toEqual(expect.any(String));
      if (c.names) {
        const named =
          Object.keys(body.error.fields ?? {}).includes(c.names) || body.error.message.includes(c.names);
        expect(named, `${JSON.stringify(body.error)} names ${c.names}`).toBe(true);
      }
    },
  );
});

describe("a CSV export that fails after it started", () => {
  const page = {
    key: "p",
    columns: [{ field: "n", label: { en: "N", zh: "N" }, cell: "text" }],
  } as unknown as PageSchema;
  const read = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

  it("ends the file with a marker row naming the request, instead of breaking the connection", async () => {
    async function* rows() {
      yield { n: 1 };
      yield { n: 2 };
      throw new Error("connection to the database lost");
    }
    const text = await read(
      await csvStream(page, rows(), { superAdmin: false, locale: "en", requestId: "r-1" }),
    );
    const lines = text.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual(["N", "1", "2"]);
    expect(lines[3]).toContain("EXPORT INCOMPLETE");
    expect(lines[3]).toContain("r-1");
    expect(text).not.toContain("database lost");
  });

  it("throws before any byte when the first page already fails, so the route answers with a JSON error", async () => {
    async function* rows() {
      if (page.key) throw new AppError("validation_failed", 'unknown filter "f.nope"');
      yield { n: 0 };
    }
    await expect(
      csvStream(page, rows(), { superAdmin: false, locale: "en", requestId: "r-2" }),
    ).rejects.toThrow("unknown filter");
  });
});

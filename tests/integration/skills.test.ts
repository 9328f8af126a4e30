import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, sysAgentAudit } from "@/db/schema";
import { parseGatewayConfig } from "@/lib/gateway/config";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { zipOf } from "../helpers/zip";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const skills = await import("@/app/api/skills/route");
const importRoute = await import("@/app/api/skills/import/route");
const oneSkill = await import("@/app/api/skills/[name]/route");
const labels = await import("@/app/api/skills/[name]/labels/[label]/route");
const prompts = await import("@/app/api/prompts/route");
const turns = await import("@/app/api/agent/turns/route");

const json = (method: string, body?: unknown) =>
  new Request("http://app/api/x", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const noParams = { params: Promise.resolve({}) };
const named = (name: string) => ({ params: Promise.resolve({ name }) });

const upload = (zip: Buffer) => {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(zip)], { type: "application/zip" }), "skill.zip");
  return new Request("http://app/api/skills/import", { method: "POST", body: form });
};

const SKILL_MD = (name: string, body = "Always cite the policy section.") =>
  `---\nname: ${name}\ndescription: "How to answer refund questions"\nlicense: MIT\nmetadata:\n  author: acme\n---\n# Refunds\n\n${body}\n`;

describe.each(testDbKinds)("skills on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let acme: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    acme = await app.tenantId("acme");
    await app.rebuild({
      gateway: parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          defaultModel: "team-gpt",
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    });
  });
  afterAll(async () => {
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.setDefault({ kind: "text", text: "an answer", usage: { input: 100, output: 20 } });
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  const get = (name: string, query = "") => oneSkill.GET(new Request(`http://app/x${query}`), named(name));

  it("creates, imports (JSON and zip) and versions a skill, with its files and change rows", async () => {
    await as("admin@acme.test");
    const created = await skills.POST(
      json("POST", {
        name: "refunds",
        description: "How to answer refund questions",
        instructions: "# Refunds\n\nv1 instructions",
        files: [{ path: "reference/policy.md", content: "30 days" }],
      }),
      noParams,
    );
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ name: "refunds", version: 1, labels: ["latest"] });

    const imported = await importRoute.POST(
      json("POST", {
        files: [
          { path: "refunds/SKILL.md", content: SKILL_MD("refunds") },
          { path: "refunds/reference/policy.md", content: "45 days" },
          { path: "refunds/templates/reply.txt", content: "Dear {{name}}" },
        ],
      }),
      noParams,
    );
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ name: "refunds", version: 2, files: 2 });

    const zipped = await importRoute.POST(
      upload(
        zipOf([
          { path: "SKILL.md", content: SKILL_MD("refunds", "zip instructions") },
          { path: "reference/policy.md", content: "60 days" },
        ]),
      ),
      noParams,
    );
    expect(zipped.status).toBe(201);
    expect((await zipped.json()).version).toBe(3);

    const v2 = await (await get("refunds", "?version=2")).json();
    expect(v2.version).toMatchObject({
      version: 2,
      type: "text",
      text: "# Refunds\n\nAlways cite the policy section.",
      config: { description: "How to answer refund questions" },
      files: [
        { path: "reference/policy.md", bytes: 7 },
        { path: "templates/reply.txt", bytes: 13 },
      ],
    });
    const file = await (await get("refunds", "?version=1&file=reference/policy.md")).json();
    expect(file.file).toMatchObject({ version: 1, content: "30 days" });
    const all = await (await get("refunds")).json();
    expect(all.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(all.labels).toEqual({ latest: 3 });

    const list = await (await skills.GET(new Request("http://app/x"), noParams)).json();
    expect(list.skills).toEqual([
      expect.objectContaining({
        name: "refunds",
        latestVersion: 3,
        description: "How to answer refund questions",
      }),
    ]);
    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.tenantId, acme), eq(adminChange.objectId, "refunds")));
    expect(changes.filter((c) => c.action === "prompt.version_created")).toHaveLength(3);
    expect(changes[0]!.after).toMatchObject({
      kind: "skill",
      files: [{ path: "reference/policy.md", bytes: 7 }],
    });
  });

  it("keeps skills off the prompts list and shares the names: a clash is a 409", async () => {
    await as("admin@acme.test");
    const list = await (await prompts.GET(new Request("http://app/x"), noParams)).json();
    expect(list.prompts.map((p: { name: string }) => p.name)).not.toContain("refunds");
    const asPrompt = await prompts.POST(
      json("POST", { name: "refunds", type: "text", text: "hi" }),
      noParams,
    );
    expect(asPrompt.status).toBe(409);
    expect((await asPrompt.json()).error.message).toContain('"refunds" is already taken by a skill');
    await prompts.POST(json("POST", { name: "greeting", type: "text", text: "hi" }), noParams);
    const asSkill = await skills.POST(
      json("POST", { name: "greeting", description: "d", instructions: "i" }),
      noParams,
    );
    expect(asSkill.status).toBe(409);
    expect((await get("greeting")).status).toBe(404);
  });

  it("refuses bad imports with a message naming the problem", async () => {
    await as("admin@acme.test");
    const refused = async (req: Request) => {
      const res = await importRoute.POST(req, noParams);
      return { status: res.status, message: String((await res.json()).error.message) };
    };
    const folder = (files: { path: string; content: string }[]) => json("POST", { files });
    expect(await refused(folder([{ path: "SKILL.md", content: "# no front matter" }]))).toMatchObject({
      status: 422,
      message: expect.stringContaining("must start with front matter"),
    });
    expect(await refused(folder([{ path: "SKILL.md", content: "---\nname: x\n---\nbody" }]))).toMatchObject({
      status: 422,
      message: expect.stringContaining("no description"),
    });
    expect(
      await refused(
        folder([{ path: "SKILL.md", content: "---\nname: Bad_Name\ndescription: d\n---\nbody" }]),
      ),
    ).toMatchObject({ status: 422, message: expect.stringContaining("not a skill name") });
    expect(
      await refused(
        folder([
          { path: "SKILL.md", content: SKILL_MD("dots") },
          { path: "../etc/passwd", content: "x" },
        ]),
      ),
    ).toMatchObject({ status: 422, message: expect.stringContaining('".."') });
    expect(
      await refused(
        folder([
          { path: "SKILL.md", content: SKILL_MD("abs") },
          { path: "/etc/passwd", content: "x" },
        ]),
      ),
    ).toMatchObject({ status: 422, message: expect.stringContaining("absolute") });
    expect(
      await refused(
        upload(
          zipOf([
            { path: "SKILL.md", content: SKILL_MD("zipdots") },
            { path: "a/../../b", content: "x" },
          ]),
        ),
      ),
    ).toMatchObject({ status: 422, message: expect.stringContaining('".."') });
    // A file past 256 KiB.
    expect(
      await refused(
        upload(
          zipOf([
            { path: "SKILL.md", content: SKILL_MD("big") },
            { path: "big.txt", content: "a".repeat(300_000) },
          ]),
        ),
      ),
    ).toMatchObject({ status: 422, message: expect.stringContaining("too big") });
    // A zip bomb whose directory lies about its size: 50 MB of zeros in ~50 KB, stopped at the bound.
    const bomb = zipOf(
      [
        { path: "SKILL.md", content: SKILL_MD("bomb") },
        { path: "zeros.txt", content: Buffer.alloc(50 * 1024 * 1024) },
      ],
      true,
    );
    expect(bomb.length).toBeLessThan(200_000);
    expect(await refused(upload(bomb))).toMatchObject({
      status: 422,
      message: expect.stringContaining("too big once decompressed"),
    });
    expect(await refused(upload(Buffer.from("not a zip at all")))).toMatchObject({
      status: 422,
      message: expect.stringContaining("not a zip file"),
    });
    const binary = zipOf([
      { path: "SKILL.md", content: SKILL_MD("bin") },
      { path: "x.bin", content: Buffer.from([0xff, 0xfe, 0x00]) },
    ]);
    expect(await refused(upload(binary))).toMatchObject({
      status: 422,
      message: expect.stringContaining("text"),
    });
    expect((await get("bomb")).status).toBe(404);
  });

  it("keeps a tenant's skills its own", async () => {
    await as("admin@globex.test", "globex");
    expect((await get("refunds")).status).toBe(404);
    expect((await get("refunds", "?file=reference/policy.md")).status).toBe(404);
    const list = await (await skills.GET(new Request("http://app/x"), noParams)).json();
    expect(list.skills).toEqual([]);
    expect(
      (
        await labels.PUT(json("PUT", { version: 1 }), {
          params: Promise.resolve({ name: "refunds", label: "staging" }),
        })
      ).status,
    ).toBe(404);
  });

  it("tells the model the skill's name and description, and gives its instructions only when skill_load is called", async () => {
    await as("admin@acme.test");
    // production (v2) is what the model loads, not latest (v3).
    expect(
      (
        await labels.PUT(json("PUT", { version: 2 }), {
          params: Promise.resolve({ name: "refunds", label: "production" }),
        })
      ).status,
    ).toBe(200);
    upstream.enqueue(
      { kind: "tool_calls", calls: [{ id: "c1", name: "skill_load", args: { name: "refunds" } }] },
      {
        kind: "tool_calls",
        calls: [{ id: "c2", name: "skill_file", args: { name: "refunds", path: "templates/reply.txt" } }],
      },
      { kind: "text", text: "Refunds take 45 days." },
    );
    const res = await turns.POST(json("POST", { message: "can I get a refund?" }), noParams);
    expect(res.status).toBe(200);
    await res.text();
    expect(upstream.requests).toHaveLength(3);
    const body = (n: number) => JSON.stringify(upstream.requests[n]!.body);
    const first = upstream.requests[0]!.body;
    const system = (first.messages as { role: string; content: string }[])[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("- refunds: How to answer refund questions");
    expect((first.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(
      expect.arrayContaining(["skill_load", "skill_file"]),
    );
    expect(body(0)).not.toContain("Always cite the policy section");
    expect(body(1)).toContain("Always cite the policy section");
    expect(body(1)).not.toContain("zip instructions");
    expect(body(2)).toContain("Dear {{name}}");
    // The audit names the skill and the version the turn used.
    const events = await app.db
      .select()
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.tenantId, acme), eq(sysAgentAudit.type, "tool_result")));
    const loaded = events.find((e) => e.payload.name === "skill_load");
    expect(String(loaded?.payload.result)).toContain('"skill":"refunds","version":2');
  });

  it("offers no skills tools to a tenant without skills", async () => {
    await as("admin@globex.test", "globex");
    const res = await turns.POST(json("POST", { message: "hello" }), noParams);
    await res.text();
    expect(JSON.stringify(upstream.requests[0]!.body)).not.toContain("skill_load");
  });

  it("an archived skill is neither listed nor offered; a new version brings it back", async () => {
    await as("admin@acme.test");
    expect((await oneSkill.DELETE(json("DELETE"), named("refunds"))).status).toBe(200);
    expect((await (await skills.GET(new Request("http://app/x"), noParams)).json()).skills).toEqual([]);
    await (await turns.POST(json("POST", { message: "refund?" }), noParams)).text();
    expect(JSON.stringify(upstream.requests[0]!.body)).not.toContain("skill_load");
    // Its versions stay readable on its page.
    expect((await get("refunds", "?version=1")).status).toBe(200);
    const again = await skills.POST(
      json("POST", { name: "refunds", description: "Refunds, again", instructions: "v4" }),
      noParams,
    );
    expect((await again.json()).version).toBe(4);
    expect((await (await skills.GET(new Request("http://app/x"), noParams)).json()).skills).toHaveLength(1);
  });
});

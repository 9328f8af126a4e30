import { and, asc, count, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { agentFiles, sysAgentAudit, sysAgentMessage, sysAgentTurn, tenant } from "@/db/schema";
import { ATTACHMENT_TEXT_LIMIT } from "@/features/drawer/server/attachments";
import { UPLOAD_BODY_MAX_BYTES } from "@/features/drawer/server/files";
import type { SessionClaims } from "@/lib/auth/session";
import { CONTEXT_PREFACE } from "@/lib/core/text/context-block";
import { configFromEnvironment } from "@/lib/gateway/config";
import { applyRetention } from "@/lib/governance/retention";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { CORRUPT_PDF, GIF, JPEG, PNG, padded, text, tinyPdf, uploadRequest, WEBP } from "../helpers/files";
import { session } from "../helpers/session";
import { readSse, type SseFrame } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const files = await import("@/app/api/agent/files/route");
const file = await import("@/app/api/agent/files/[id]/route");
const conversation = await import("@/app/api/agent/conversations/[id]/route");

const noParams = { params: Promise.resolve({}) };
const upload = (req: Request) => files.POST(req, noParams);
const get = (id: string) =>
  file.GET(new Request(`http://app/api/agent/files/${id}`), { params: Promise.resolve({ id }) });

const replyText = (fs: SseFrame[]) =>
  fs
    .filter((f) => f.event === "text")
    .map((f) => f.data.delta)
    .join("");

describe.each(testDbKinds)("uploaded files on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let member: SessionClaims;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    member = { userId: await app.userId("member@acme.test"), tenantId: acme };
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    session.claims = member;
    await app.db.delete(agentFiles);
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const stored = async () => (await app.db.select({ n: count() }).from(agentFiles))[0]!.n;
  const uploaded = async (bytes: Uint8Array, name: string, type = "") => {
    const res = await upload(uploadRequest(bytes, name, type));
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { id: string; name: string; type: string; size: number };
  };
  const refused = async (req: Request) => {
    const res = await upload(req);
    return {
      status: res.status,
      message: ((await res.json()) as { error: { message: string } }).error.message,
    };
  };

  it("takes each accepted type, recognised by its content, and keeps its bytes and text", async () => {
    const cases: [Uint8Array, string, string, string][] = [
      [PNG, "dot.png", "image/png", "image/png"],
      [JPEG, "photo.jpg", "image/jpeg", "image/jpeg"],
      [WEBP, "dot.webp", "image/webp", "image/webp"],
      [GIF, "dot.gif", "image/gif", "image/gif"],
      [text("plain words\n"), "notes.txt", "text/plain", "text/plain"],
      [text("# Title\n\nbody"), "notes.md", "", "text/markdown"],
      [text("a,b\n1,2\n"), "table.csv", "application/vnd.ms-excel", "text/csv"],
      [text('{"a":1}'), "data.json", "application/json", "application/json"],
      [tinyPdf("Quarterly report", "Revenue grew 12%"), "report.pdf", "application/pdf", "application/pdf"],
      // The content decides: a PNG sent as "image/jpeg" is stored as the PNG it is.
      [PNG, "misnamed.jpg", "image/jpeg", "image/png"],
    ];
    for (const [bytes, name, declared, type] of cases) {
      const answer = await uploaded(bytes, name, declared);
      expect(answer).toEqual({ id: expect.any(String), name, type, size: bytes.byteLength });
      const [row] = await app.db.select().from(agentFiles).where(eq(agentFiles.id, answer.id));
      expect(row).toMatchObject({
        tenantId: acme,
        userId: member.userId,
        mediaType: type,
        conversationId: null,
      });
      expect(Buffer.compare(row!.bytes, Buffer.from(bytes))).toBe(0);
      if (type.startsWith("image/")) expect(row!.text).toBeNull();
    }
    const [pdf] = await app.db.select().from(agentFiles).where(eq(agentFiles.name, "report.pdf"));
    expect(pdf!.text).toBe("Quarterly report\nRevenue grew 12%");
    const [md] = await app.db.select().from(agentFiles).where(eq(agentFiles.name, "notes.md"));
    expect(md!.text).toBe("# Title\n\nbody");
  });

  it("refuses wrong types, files past their limit, corrupt PDFs and bad forms, storing nothing", async () => {
    expect(await refused(uploadRequest(text("not an image"), "fake.png", "image/png"))).toEqual({
      status: 415,
      message: "fake.png is not a PNG image: its content does not match its type",
    });
    const zip = await refused(
      uploadRequest(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]), "a.zip", "application/zip"),
    );
    expect(zip.status).toBe(415);
    expect(zip.message).toContain("PNG, JPEG, WebP or GIF images; text, Markdown, CSV, JSON or PDF files");
    expect(await refused(uploadRequest(new Uint8Array([0x68, 0, 0x69]), "bin.txt", "text/plain"))).toEqual({
      status: 415,
      message: "bin.txt is not text: it holds binary (NUL) bytes",
    });
    expect(await refused(uploadRequest(new Uint8Array([0xc3, 0x28]), "latin.txt"))).toMatchObject({
      status: 415,
    });
    expect(await refused(uploadRequest(padded(PNG, 5 * 1024 * 1024 + 1), "big.png", "image/png"))).toEqual({
      status: 413,
      message: "big.png is 5 MB; images may be at most 5 MB",
    });
    const bigText = await refused(uploadRequest(new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61), "big.txt"));
    expect(bigText).toEqual({
      status: 413,
      message: "big.txt is 10 MB; text and PDF files may be at most 10 MB",
    });
    const corrupt = await refused(uploadRequest(CORRUPT_PDF, "broken.pdf", "application/pdf"));
    expect(corrupt.status).toBe(400);
    expect(corrupt.message).toMatch(/^could not read the PDF: \S/);
    expect(await refused(uploadRequest(new Uint8Array(0), "empty.txt"))).toEqual({
      status: 400,
      message: "empty.txt is empty",
    });
    expect(await refused(uploadRequest(PNG, "dot.png", "image/png", "attachment"))).toEqual({
      status: 400,
      message: 'send the file in a form field named "file"',
    });
    const json = await upload(
      new Request("http://app/api/agent/files", {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      }),
    );
    expect(json.status).toBe(415);
    expect(await stored()).toBe(0);
  });

  it("refuses a body past the upload limit early: by its declared length, or while it streams", async () => {
    const declared = await refused(
      new Request("http://app/api/agent/files", {
        method: "POST",
        body: "x",
        headers: {
          "content-type": "multipart/form-data; boundary=b",
          "content-length": String(50 * 1024 * 1024),
        },
      }),
    );
    expect(declared).toEqual({
      status: 413,
      message: "the request body is larger than the limit of 10.25 MB",
    });
    // A 50 MB body without a length: refused once the count passes the limit, not read to its end.
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        if (pulled > 50 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const streamed = await refused(
      new Request("http://app/api/agent/files", {
        method: "POST",
        body: endless,
        duplex: "half",
        headers: { "content-type": "multipart/form-data; boundary=b" },
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(UPLOAD_BODY_MAX_BYTES + 4 * 1024 * 1024);
    expect(await stored()).toBe(0);
  });

  it("refuses an upload past the tenant's quota, naming the quota and what is used", async () => {
    vi.stubEnv("FILE_QUOTA_BYTES", String(PNG.byteLength * 2 + 10));
    await uploaded(PNG, "one.png", "image/png");
    await uploaded(PNG, "two.png", "image/png");
    const over = await refused(uploadRequest(PNG, "three.png", "image/png"));
    expect(over.status).toBe(413);
    expect(over.message).toContain(
      `the file storage quota of this tenant is ${PNG.byteLength * 2 + 10} bytes and ${PNG.byteLength * 2} bytes of it is used: three.png (${PNG.byteLength} bytes) does not fit`,
    );
    expect(await stored()).toBe(2);
    // Two uploads at once into the last free space: exactly one fits (the tenant's row is held while it counts).
    await app.db.delete(agentFiles);
    vi.stubEnv("FILE_QUOTA_BYTES", String(PNG.byteLength + 10));
    const racing = await Promise.all([
      upload(uploadRequest(PNG, "a.png", "image/png")),
      upload(uploadRequest(PNG, "b.png", "image/png")),
    ]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 413]);
    expect(await stored()).toBe(1);
    // Another tenant's quota is its own.
    session.claims = {
      userId: await app.userId("member@globex.test"),
      tenantId: await app.tenantId("globex"),
    };
    await uploaded(PNG, "theirs.png", "image/png");
  });

  it("serves a file to its uploader only: images inline, others as attachments, never sniffed", async () => {
    const image = await uploaded(PNG, "dot.png", "image/png");
    const pdf = await uploaded(tinyPdf("hello"), "Q3 résumé.pdf", "application/pdf");
    const res = await get(image.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(
      `inline; filename="dot.png"; filename*=UTF-8''dot.png`,
    );
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
    const doc = await get(pdf.id);
    expect(doc.headers.get("content-type")).toBe("application/pdf");
    expect(doc.headers.get("content-disposition")).toBe(
      `attachment; filename="Q3 r_sum_.pdf"; filename*=UTF-8''Q3%20r%C3%A9sum%C3%A9.pdf`,
    );
    expect((await get("not-a-uuid")).status).toBe(404);
    // Another member of the same tenant, and someone in another tenant, get 404: the file is the uploader's.
    session.claims = { userId: await app.userId("admin@acme.test"), tenantId: acme };
    expect((await get(image.id)).status).toBe(404);
    session.claims = {
      userId: await app.userId("member@globex.test"),
      tenantId: await app.tenantId("globex"),
    };
    expect((await get(image.id)).status).toBe(404);
    const del = (id: string) =>
      file.DELETE(new Request("http://app/x", { method: "DELETE" }), { params: Promise.resolve({ id }) });
    expect((await del(image.id)).status).toBe(404);
    session.claims = member;
    expect((await del(image.id)).status).toBe(204);
    expect((await get(image.id)).status).toBe(404);
  });

  it("a turn reads its attachments: the offline model quotes the file and counts the images; the message shows them; the audit masks them", async () => {
    const secret = "sk-proj-a1b2c3d4e5f6g7h8i9j0k1l2m3n4";
    const notes = await uploaded(text(`Launch plan: ship on Friday. Key: ${secret}`), "notes.md");
    const image = await uploaded(PNG, "dot.png", "image/png");
    const res = await postTurn({ message: "hello there", attachments: [notes.id, image.id] });
    expect(res.status).toBe(200);
    const conversationId = res.headers.get("x-conversation-id")!;
    const fs = await readSse(res);
    const reply = replyText(fs);
    expect(reply).toContain(`I read notes.md: "Launch plan: ship on Friday. Key: ${secret}".`);
    expect(reply).toContain("I received 1 image, but as the offline demo model I cannot see images.");
    expect(fs.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });

    // The user message carries the files for the drawer, and the block the model read (for later turns).
    const [user] = await app.db
      .select()
      .from(sysAgentMessage)
      .where(and(eq(sysAgentMessage.sessionId, conversationId), eq(sysAgentMessage.role, "user")));
    expect(user!.parts.data?.attachments).toEqual([
      { id: notes.id, name: "notes.md", type: "text/markdown", size: notes.size },
      { id: image.id, name: "dot.png", type: "image/png", size: PNG.byteLength },
    ]);
    const blocks = user!.parts.data?.contextBlocks as string[];
    expect(blocks[0]).toBe(CONTEXT_PREFACE);
    expect(blocks[1]).toBe(
      `<context kind="file" name="notes.md" type="text/markdown">\nLaunch plan: ship on Friday. Key: ${secret}\n</context>`,
    );
    const view = await (
      await conversation.GET(new Request("http://app/x"), { params: Promise.resolve({ id: conversationId }) })
    ).json();
    expect(view.messages[0].data.attachments).toHaveLength(2);

    // Sent files belong to their conversation now.
    const rows = await app.db.select().from(agentFiles).where(eq(agentFiles.tenantId, acme));
    expect(rows.map((r) => r.conversationId)).toEqual([conversationId, conversationId]);

    // The audit names the files and keeps the text the model read, masked.
    await vi.waitFor(async () => {
      const [request] = await app.db
        .select()
        .from(sysAgentAudit)
        .where(and(eq(sysAgentAudit.conversationId, conversationId), eq(sysAgentAudit.type, "request")));
      const payload = request!.payload as { attachments: unknown[]; attachmentText: string[] };
      expect(payload.attachments).toEqual(user!.parts.data?.attachments);
      expect(payload.attachmentText).toHaveLength(1);
      expect(payload.attachmentText[0]).toContain("Key: [masked:openai_key]");
      expect(JSON.stringify(payload)).not.toContain(secret);
    });

    // A later turn still reads the file's text (stored with the message), without re-sending the image.
    const again = await readSse(await postTurn({ conversationId, message: "and now?" }));
    expect(replyText(again)).not.toContain("I received");
  });

  it("a regenerate sends the message's image again (its text is carried as stored), and says so when the image is gone", async () => {
    const notes = await uploaded(text("Ship on Friday."), "notes.md");
    const image = await uploaded(PNG, "dot.png", "image/png");
    const first = await postTurn({ message: "look at these", attachments: [notes.id, image.id] });
    const conversationId = first.headers.get("x-conversation-id")!;
    await first.text();
    const again = replyText(await readSse(await postTurn({ conversationId, regenerate: true })));
    expect(again).toContain('I read notes.md: "Ship on Friday.".');
    expect(again).toContain("I received 1 image");
    await file.DELETE(new Request("http://app/x", { method: "DELETE" }), {
      params: Promise.resolve({ id: image.id }),
    });
    const gone = await postTurn({ conversationId, regenerate: true });
    expect(gone.status).toBe(410);
    expect((await gone.json()).error.message).toBe(
      "an image of this message is no longer stored; attach it again and send the message as an edit",
    );
  });

  it("cuts attached text past the message's limit, with a notice naming the file", async () => {
    const long = await uploaded(text(`${"abcdefghij".repeat(3_000)}`), "long.txt");
    const short = await uploaded(text("short note"), "short.txt");
    const fs = await readSse(await postTurn({ message: "summarise", attachments: [long.id, short.id] }));
    const notices = fs.filter((f) => f.event === "notice");
    expect(notices).toEqual([
      {
        event: "notice",
        data: {
          code: "attachment_cut",
          message: `long.txt was cut to its first ${(ATTACHMENT_TEXT_LIMIT - 10).toLocaleString("en-US")} of 30,000 characters (20,000 at most for a message's files)`,
        },
      },
    ]);
  });

  it("refuses an unknown or someone else's file id with 404 naming it, before anything is sent", async () => {
    const turnsBefore = (await app.db.select({ n: count() }).from(sysAgentTurn))[0]!.n;
    const unknown = crypto.randomUUID();
    const res = await postTurn({ message: "read this", attachments: [unknown] });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe(`file ${unknown} not found (upload it again)`);
    // Another member's file (same tenant), and another tenant's, are not found either.
    const mine = await uploaded(PNG, "mine.png", "image/png");
    session.claims = { userId: await app.userId("admin@acme.test"), tenantId: acme };
    expect((await postTurn({ message: "read this", attachments: [mine.id] })).status).toBe(404);
    session.claims = {
      userId: await app.userId("member@globex.test"),
      tenantId: await app.tenantId("globex"),
    };
    expect((await postTurn({ message: "read this", attachments: [mine.id] })).status).toBe(404);
    expect((await app.db.select({ n: count() }).from(sysAgentTurn))[0]!.n).toBe(turnsBefore);
  });

  it("files go with their conversation, and retention deletes files older than the tenant's window", async () => {
    const sent = await uploaded(PNG, "sent.png", "image/png");
    const res = await postTurn({ message: "look", attachments: [sent.id] });
    const conversationId = res.headers.get("x-conversation-id")!;
    await res.text();
    const kept = await uploaded(PNG, "kept.png", "image/png");
    const del = await conversation.DELETE(new Request("http://app/x", { method: "DELETE" }), {
      params: Promise.resolve({ id: conversationId }),
    });
    expect(del.status).toBe(204);
    expect((await app.db.select({ id: agentFiles.id }).from(agentFiles)).map((r) => r.id)).toEqual([kept.id]);

    const old = await uploaded(PNG, "old.png", "image/png");
    await app.db
      .update(agentFiles)
      .set({ createdAt: new Date(Date.now() - 40 * 24 * 3600_000) })
      .where(eq(agentFiles.id, old.id));
    await app.db.update(tenant).set({ retentionDays: 30 }).where(eq(tenant.id, acme));
    try {
      const result = await applyRetention(app.db, { batchSize: 1 });
      expect(result.files).toBe(1);
      const left = await app.db
        .select({ id: agentFiles.id })
        .from(agentFiles)
        .orderBy(asc(agentFiles.createdAt));
      expect(left.map((r) => r.id)).toEqual([kept.id]);
      // FILE_RETENTION_DAYS keeps files for less than the tenant's window.
      await app.db
        .update(agentFiles)
        .set({ createdAt: new Date(Date.now() - 10 * 24 * 3600_000) })
        .where(eq(agentFiles.id, kept.id));
      expect((await applyRetention(app.db, { env: { FILE_RETENTION_DAYS: "7" } })).files).toBe(1);
    } finally {
      await app.db.update(tenant).set({ retentionDays: 90 }).where(eq(tenant.id, acme));
    }
  });
});

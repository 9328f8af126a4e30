import { deflateSync } from "node:zlib";
import { type Page, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/mcp-server";
import { openFilter } from "./pages";
import { type ShotView, shotPath, shotSession } from "./shots";

// The README's screenshots that no feature spec takes on its way (those are in administration, charts-nav,
// governance-admin and spend-by-key). Each is one test: a context at the shot's size, theme and language,
// signed in as the demo user the picture shows, brought to the state to show, then photographed (the view,
// not the whole page). It runs only with E2E_SCREENSHOTS=1 (playwright.config.ts), which refreshes the docs'.
// What a shot leaves behind that other specs could see (the MCP server, the API keys, Acme's guardrail policy) is
// removed afterwards.

test.describe.configure({ timeout: 60_000 });

async function openDrawer(p: Page) {
  await p.getByTestId("agent-drawer-toggle").click();
  await p.getByTestId("agent-drawer").waitFor();
}

/** Scripts the fake OpenAI upstream's next answers (from a clean queue). */
async function enqueueReplies(p: Page, ...replies: unknown[]) {
  await p.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  await p.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });
}

async function ask(p: Page, text: string) {
  await p.getByTestId("agent-input").fill(text);
  await p.getByTestId("agent-input").press("Enter");
  await p.getByTestId("agent-answer-footer").last().waitFor({ timeout: 20_000 });
}

/** Asks and waits for this answer's own footer (`ask` is done as soon as any earlier answer has one). */
async function askAndWait(p: Page, text: string) {
  const before = await p.getByTestId("agent-answer-footer").count();
  await p.getByTestId("agent-input").fill(text);
  await p.getByTestId("agent-input").press("Enter");
  await p.getByTestId("agent-answer-footer").nth(before).waitFor({ timeout: 20_000 });
}

/** The API keys the shots made, revoked when they are done. */
const keysMade: { ids: string[] } = { ids: [] };
/** The skills a shot imported, archived afterwards. */
const skillsMade: { names: string[] } = { names: [] };

/** One /v1 call that an unpriced model (the e2e server's `house-model`) answers, with a key made for it (and an end user). */
async function unpricedCall(p: Page, endUser?: string) {
  const key = await p.request.post("/api/keys", { data: { name: `screenshot ${Date.now()}` } });
  const { secret, key: made } = (await key.json()) as { secret: string; key: { id: string } };
  keysMade.ids.push(made.id);
  // The fake names the model that served, as the real API does: pricing goes by that name.
  await enqueueReplies(p, {
    kind: "text",
    text: "in-house answer",
    model: "house-llm-1",
    usage: { input: 1000, output: 500 },
  });
  await p.request.post("/v1/chat/completions", {
    data: {
      model: "house-model",
      messages: [{ role: "user", content: "hello" }],
      ...(endUser ? { user: endUser } : {}),
    },
    headers: { authorization: `Bearer ${secret}` },
  });
}

/** One /v1 call that a priced model answers (the fake's default reply), for an end user. */
async function pricedCall(p: Page, endUser: string) {
  const key = await p.request.post("/api/keys", { data: { name: `screenshot priced ${Date.now()}` } });
  const { secret, key: made } = (await key.json()) as { secret: string; key: { id: string } };
  keysMade.ids.push(made.id);
  await p.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  await p.request.post("/v1/chat/completions", {
    data: { model: "house-model", messages: [{ role: "user", content: "hello" }], user: endUser },
    headers: { authorization: `Bearer ${secret}` },
  });
}

/** A run of three /v1 calls under one run id (x-tollgate-run-id), for the Runs page and its replay. */
async function runOfCalls(p: Page, runId: string) {
  const key = await p.request.post("/api/keys", { data: { name: `screenshot run ${Date.now()}` } });
  const { secret, key: made } = (await key.json()) as { secret: string; key: { id: string } };
  keysMade.ids.push(made.id);
  for (const content of ["Find order 4711", "Check its refund policy", "Draft the refund note"])
    await p.request.post("/v1/chat/completions", {
      data: { model: "house-model", messages: [{ role: "user", content }] },
      headers: { authorization: `Bearer ${secret}`, "x-tollgate-run-id": runId },
    });
}

/** A key rotated with a day's overlap: both listed, linked, the old one expiring. */
async function rotatedKey(p: Page) {
  const key = await p.request.post("/api/keys", { data: { name: "billing app", expiresInDays: 90 } });
  const { key: made } = (await key.json()) as { key: { id: string } };
  keysMade.ids.push(made.id);
  const rotated = await p.request.post(`/api/keys/${made.id}/rotate`, { data: { overlapHours: 24 } });
  keysMade.ids.push(((await rotated.json()) as { key: { id: string } }).key.id);
  await p.goto("/dev/admin/keys");
  await p.getByTestId("key-rotated-to").first().waitFor();
  // The newest key's actions open (one line of small buttons under its row); both keys of the rotation in view.
  await p.getByTestId("key-actions-toggle").first().click();
  await p.getByTestId("key-actions-row").waitFor();
  await p
    .getByTestId("keys-table")
    .locator("tbody tr")
    .first()
    .evaluate((e) => e.scrollIntoView({ block: "center" }));
}

/** A demo turn worth replaying: it succeeded after two or more rounds, one of them with tools in parallel. */
async function demoTurnWithTools(p: Page): Promise<string> {
  const res = await p.request.get("/api/schema/agent-audit/rows?segment=tool_call&limit=200");
  const ids = [...new Set(((await res.json()) as { rows: { turnId: string }[] }).rows.map((r) => r.turnId))];
  for (const id of ids) {
    const replay = (await (await p.request.get(`/api/agent/turns/${id}/replay`)).json()) as {
      turn: { status: string };
      events: { type: string; payload: { round?: number } }[];
    };
    const rounds = replay.events.filter((e) => e.type === "tool_call").map((e) => e.payload.round);
    const distinct = new Set(rounds).size;
    if (replay.turn.status === "success" && distinct >= 2 && distinct < rounds.length && rounds.length <= 4)
      return id;
  }
  return ids[0]!;
}
async function openReplay(p: Page) {
  await p.goto(`/dev/agent/audit/${await demoTurnWithTools(p)}`);
  await p.getByTestId("replay-waterfall").waitFor();
}

/** A small PNG (a soft gradient) to attach, made here so the screenshots need no image file. */
function gradientPng(size = 96): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3);
    for (let x = 0; x < size; x++) rows.set([79 + x, 70 + y, 229 - (x + y) / 2], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * The drawer with what goes with a message: the orders table card and an order card, the order offered as a
 * context chip ("Use as context"), a Markdown file and an image attached, and a draft waiting to be sent.
 */
async function drawerWithContext(p: Page) {
  await openDrawer(p);
  await askAndWait(p, "show my open orders");
  await askAndWait(p, 'look up order number "A-1001"');
  await p.getByTestId("agent-card-use-context").last().click();
  await p.getByTestId("agent-file-input").setInputFiles([
    {
      name: "delivery-notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("# Delivery notes\n\nLeave parcels for A-1001 at the back door.\n"),
    },
    { name: "damaged-box.png", mimeType: "image/png", buffer: gradientPng() },
  ]);
  await p
    .locator('[data-testid="agent-file"][data-status="uploading"]')
    .first()
    .waitFor({ state: "detached" });
  await p.getByTestId("agent-input").fill("Is this order late? My notes and a photo are attached.");
  // The orders table at the top of the view, the order card under it.
  await p
    .locator('[data-testid="agent-card"][data-kind="table"]')
    .evaluate((el) => el.scrollIntoView({ block: "start" }));
}

/**
 * The MCP shots' server: the test MCP server, started here and registered for Acme as `helpdesk` (once per run;
 * the e2e server allows 127.0.0.1), its `echo` tool set to ask the user first. Deleted after the shots, as
 * tests/e2e/mcp.spec.ts starts from a tenant without servers.
 */
const mcp: { server: FakeMcpServer | null; registered: string | null } = { server: null, registered: null };
async function helpdeskRegistered(p: Page) {
  mcp.server ??= await startFakeMcpServer();
  const mcpServer = mcp.server;
  const { servers } = (await (await p.request.get("/api/mcp/servers")).json()) as {
    servers: { id: string; name: string; url: string }[];
  };
  let server = servers.find((s) => s.name === "helpdesk" && s.url === mcpServer.url);
  for (const stale of servers.filter((s) => s.name === "helpdesk" && s !== server))
    await p.request.delete(`/api/mcp/servers/${stale.id}`);
  if (!server) {
    const created = await p.request.post("/api/mcp/servers", {
      data: { name: "helpdesk", url: mcpServer.url, headers: { Authorization: "Bearer not-shown-again" } },
    });
    server = (await created.json()) as { id: string; name: string; url: string };
  }
  mcp.registered = server.id;
  await p.request.put(`/api/mcp/servers/${server.id}/tools/echo`, { data: { requiresConfirmation: true } });
  await p.request.put(`/api/mcp/servers/${server.id}/tools/failing_lookup`, { data: { roles: ["admin"] } });
}

/** The MCP page with the helpdesk server's tools open and a test call's result (nested arguments) on screen. */
async function mcpPage(p: Page) {
  await helpdeskRegistered(p);
  await p.goto("/dev/admin/mcp");
  const server = p.locator('[data-testid="mcp-server"][data-server-name="helpdesk"]');
  await server.getByTestId("mcp-server-tools-toggle").click();
  const ticket = server.locator('[data-testid="mcp-tool"][data-tool-name="create_ticket"]');
  await ticket.getByTestId("mcp-tool-test-toggle").click();
  await ticket
    .getByTestId("mcp-test-args")
    .fill(JSON.stringify({ title: "Parcel arrived damaged", customer: { name: "Acme Retail" } }, null, 2));
  await ticket.getByTestId("mcp-test-run").click();
  await ticket.getByTestId("mcp-test-result").waitFor();
  // The server's status at the top (below the sticky top bar), its first tools and the test call's result.
  await server.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 72));
}

/** The drawer asking the user to approve a call of the helpdesk server's echo tool. */
async function drawerConfirm(p: Page) {
  await helpdeskRegistered(p);
  await p.reload();
  await openDrawer(p);
  await p.getByTestId("agent-input").fill('Please echo "refund order A-1002 in full"');
  await p.getByTestId("agent-input").press("Enter");
  await p.getByTestId("agent-confirm").waitFor({ timeout: 20_000 });
  await p.waitForTimeout(1_200);
}

/** The usage ledger's table from its top, below the sticky bar (it scrolls sideways in its own box). */
async function belowTopBar(p: Page, testId: string) {
  await p.getByTestId(testId).evaluate((e) => {
    e.scrollIntoView({ block: "start" });
    window.scrollBy(0, -(document.querySelector("header")?.getBoundingClientRect().height ?? 0) - 8);
  });
}

/** A receiver on 127.0.0.1 for the Alerts page's shots, kept for the run (WEB_FETCH_ALLOW lets the server reach it). */
let alertReceiver: { url: string; close(): Promise<unknown> } | null = null;

/** The Alerts page with two channels (one answering, one not), two rules, and a test sent to each channel. */
async function alertsPage(p: Page) {
  const existing = (await (await p.request.get("/api/alerts/channels")).json()) as {
    channels: { id: string; name: string }[];
  };
  if (!existing.channels.some((c) => c.name === "Ops webhook")) {
    if (!alertReceiver) {
      const { receiver } = await import("../helpers/alert-receivers");
      alertReceiver = await receiver(() => 200);
    }
    const hook = await p.request.post("/api/alerts/channels", {
      data: {
        kind: "webhook",
        name: "Ops webhook",
        config: { url: alertReceiver.url, secret: "shot-signing-secret-0123456789" },
      },
    });
    const slack = await p.request.post("/api/alerts/channels", {
      // Nothing listens on port 9 here: its test is dead, with the reason in the log.
      data: {
        kind: "slack",
        name: "Team Slack",
        config: { url: "http://127.0.0.1:9/services/T000/B000/XXXX" },
      },
    });
    const ids = [(await hook.json()).channel.id, (await slack.json()).channel.id] as string[];
    await p.request.post("/api/alerts/rules", {
      data: {
        name: "Monthly budget",
        kind: "budget_threshold",
        params: { thresholds: [50, 80, 100], period: "monthly" },
        channelIds: ids,
      },
    });
    await p.request.post("/api/alerts/rules", {
      data: { name: "Keys expiring", kind: "key_expiring", params: { days: 14 }, channelIds: [ids[0]] },
    });
    for (const id of ids) await p.request.post(`/api/alerts/channels/${id}/test`);
  }
  await p.goto("/dev/admin/alerts");
  await p.getByTestId("al-delivery").first().waitFor();
  // On a phone the delivery log is far down: the shot shows it.
  if ((p.viewportSize()?.width ?? 1280) < 500)
    await p.getByTestId("al-delivery").first().scrollIntoViewIfNeeded();
}

/** Whether a shot saved a guardrail policy for Acme (emptied when the shots are done). */
const guardrails = { saved: false };

/** The Guardrails page with a small policy and a text tried in its "Test a text" box. */
async function guardrailsPage(p: Page) {
  const put = await p.request.put("/api/governance/guardrails", {
    data: {
      rules: [
        { id: "pii", name: "Personal data", stage: "input", check: { type: "pii" }, action: "redact" },
        { id: "secrets", name: "Secrets", stage: "input", check: { type: "secrets" }, action: "redact" },
        {
          id: "injection",
          name: "Injections",
          stage: "input",
          check: { type: "injection" },
          action: "block",
        },
      ],
    },
  });
  if (!put.ok()) throw new Error(`saving the guardrail policy failed: ${put.status()}`);
  guardrails.saved = true;
  await p.goto("/dev/admin/guardrails");
  await p.getByTestId("gr-rule").first().waitFor();
  await p.getByTestId("gr-test-text").fill("Write to jane.doe@example.com about her order.");
  await p.getByTestId("gr-test-run").click();
  await p.getByTestId("gr-test-result").waitFor();
}

/** Whether a shot set Acme's run ceilings (removed when the shots are done). */
const runCeilings = { saved: false };

/**
 * The Limits page's run ceilings: the tenant's set, and a key's, its form open under its row (at 360 px, the
 * key table and that form in view). One "support bot" key for both shots.
 */
async function runCeilingsPage(p: Page, phone = false) {
  const listed = (await (await p.request.get("/api/governance/run-ceilings")).json()) as {
    keys: { id: string; name: string }[];
  };
  let made = listed.keys.find((k) => k.name === "support bot");
  if (!made) {
    const key = await p.request.post("/api/keys", { data: { name: "support bot" } });
    made = ((await key.json()) as { key: { id: string; name: string } }).key;
    keysMade.ids.push(made.id);
  }
  runCeilings.saved = true;
  const put = (data: object) => p.request.put("/api/governance/run-ceilings", { data });
  for (const res of [
    await put({ scope: "tenant", maxUsd: "5", maxCalls: 200, maxSeconds: 900 }),
    await put({ scope: "key", subjectId: made.id, maxUsd: "0.5", maxCalls: 25, maxTokens: 200000 }),
  ])
    if (!res.ok()) throw new Error(`saving run ceilings failed: ${res.status()}`);
  await p.goto("/dev/admin/limits");
  const row = p.locator(`[data-testid="key-run-ceiling-row"][data-key-id="${made.id}"]`);
  await row.getByRole("button").click();
  await p.getByTestId("key-run-ceilings-form").waitFor();
  if (phone) await p.getByTestId("key-run-ceilings-form").evaluate((e) => e.scrollIntoView({ block: "end" }));
  else await belowTopBar(p, "run-ceilings");
}

const PHONE = { width: 360, height: 780 };

/** Each shot: its name (docs/screenshots/<name>.png), who is signed in, the view, and how to get there. */
const shots: [string, string | null, ShotView, (p: Page) => Promise<unknown>][] = [
  ["mcp-servers", "admin@acme.test", {}, mcpPage],
  ["mcp-servers-mobile", "admin@acme.test", PHONE, mcpPage],
  ["drawer-confirm", "admin@acme.test", {}, drawerConfirm],
  ["drawer-confirm-mobile", "admin@acme.test", PHONE, drawerConfirm],
  ["drawer-context", "member@acme.test", {}, drawerWithContext],
  ["drawer-context-mobile", "member@acme.test", PHONE, drawerWithContext],
  [
    "drawer-ask-ledger",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/turns");
      await p.getByTestId("data-row").first().locator("td").first().click();
      await p.getByTestId("detail-drawer").getByTestId("ask-assistant").click();
      await p.getByTestId("agent-input").fill("Why was this turn so expensive?");
    },
  ],
  [
    "drawer-governance",
    "admin@acme.test",
    {},
    async (p) => {
      await openDrawer(p);
      await askAndWait(p, "which model cost us most this week, and who used it?");
    },
  ],
  [
    "drawer-governance-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await openDrawer(p);
      await askAndWait(p, "which model cost us most this week, and who used it?");
      await p.locator('[data-testid="agent-card"][data-kind="table"]').first().scrollIntoViewIfNeeded();
    },
  ],
  ["drawer-empty", "member@acme.test", {}, openDrawer],
  [
    "drawer-tool",
    "member@acme.test",
    {},
    async (p) => {
      await openDrawer(p);
      await ask(p, "What are my open orders?");
    },
  ],
  [
    "drawer-dark",
    "admin@acme.test",
    { colorScheme: "dark" },
    async (p) => {
      await openDrawer(p);
      await ask(p, "Plan the steps to onboard a new customer");
    },
  ],
  [
    "drawer-mobile",
    "member@globex.test",
    { width: 360, height: 740 },
    async (p) => {
      await openDrawer(p);
      await ask(p, "What time is it in Tokyo?");
    },
  ],
  ["drawer-zh", "multi@tollgate.test", { locale: "zh" }, openDrawer],
  [
    "drawer-error",
    "admin@globex.test",
    {},
    async (p) => {
      await openDrawer(p);
      await p.getByTestId("agent-model-select").selectOption("gpt-fake");
      await enqueueReplies(p, { kind: "error", status: 503, message: "upstream overloaded" });
      await p.getByTestId("agent-input").fill("Are you there?");
      await p.getByTestId("agent-input").press("Enter");
      await p.getByTestId("agent-error").waitFor();
    },
  ],
  [
    "drawer-history",
    "admin@acme.test",
    {},
    async (p) => {
      await openDrawer(p);
      await ask(p, "## Quarterly **budget** review for the sales team");
      await p.getByTestId("agent-new-conversation").click();
      await ask(p, "What time is it in Tokyo?");
      await p.getByTestId("agent-conversations-toggle").click();
      await p.getByTestId("agent-history-search").fill("budget");
      await p.waitForTimeout(800);
    },
  ],
  [
    "drawer-actions",
    "admin@globex.test",
    {},
    async (p) => {
      await openDrawer(p);
      await p.getByTestId("agent-model-select").selectOption("gpt-fake");
      await enqueueReplies(
        p,
        { kind: "text", text: "Paris is the capital of France." },
        { kind: "text", text: "The capital of France is **Paris**, on the Seine." },
      );
      await ask(p, "What is the capital of France?");
      await p.getByTestId("agent-regenerate").click();
      await p.getByTestId("agent-message-assistant").getByText("on the Seine").waitFor();
      await p.getByTestId("agent-answer-footer").last().waitFor();
    },
  ],
  [
    "drawer-table",
    "admin@globex.test",
    {},
    async (p) => {
      await openDrawer(p);
      await p.getByTestId("agent-model-select").selectOption("gpt-fake");
      const table = [
        "| Model | Provider | Input tokens | Output tokens | Cost | Latency | Status |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
        "| gpt-4o-mini-2024-07-18 | openai-compatible | 123,456 | 78,901 | $15.75 | 1.8 s | success |",
        "| claude-3-5-haiku-20241022 | anthropic | 45,210 | 12,034 | $9.44 | 2.3 s | success |",
      ].join("\n");
      await enqueueReplies(p, { kind: "text", text: `Spend by model this month:\n\n${table}` });
      await ask(p, "Show spend by model as a table");
    },
  ],
  [
    "login",
    null,
    {},
    async (p) => {
      await p.goto("/login");
      await p.getByLabel(/password/i).fill("wrong");
      await p.getByLabel(/email/i).fill("member@acme.test");
      await p.getByRole("button", { name: /^sign in$/i }).click();
      await p.getByTestId("login-error").waitFor();
    },
  ],
  ["home", "admin@acme.test", {}, async () => undefined],
  ["home-dark", "multi@tollgate.test", { colorScheme: "dark" }, async () => undefined],
  ["home-zh", "root@tollgate.test", { locale: "zh" }, async () => undefined],
  ["forbidden", "member@acme.test", {}, (p) => p.goto("/dev/agent/turns")],
  [
    "admin-turns",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/turns");
      await p.getByTestId("data-row").first().waitFor();
      await p.getByTestId("row-count").waitFor();
    },
  ],
  [
    "admin-turns-detail",
    "admin@acme.test",
    { height: 1000 },
    async (p) => {
      await p.goto("/dev/agent/turns?segment=failed");
      await p.getByTestId("data-row").first().click();
      await p.getByTestId("detail-event").first().waitFor();
    },
  ],
  [
    "admin-audit",
    "root@tollgate.test",
    { height: 1000 },
    async (p) => {
      await p.goto("/dev/agent/audit");
      await p.getByTestId("data-row").first().waitFor();
    },
  ],
  ["admin-replay", "admin@acme.test", {}, openReplay],
  [
    "admin-replay-steps",
    "admin@acme.test",
    {},
    async (p) => {
      await openReplay(p);
      await p.getByTestId("step-tool").first().scrollIntoViewIfNeeded();
      await p
        .getByTestId("step-tool")
        .first()
        .evaluate((e) => e.scrollIntoView({ block: "start" }));
    },
  ],
  [
    "admin-replay-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await openReplay(p);
      // The header is the shell's; the timeline and the first steps are the replay.
      await p.locator("#replay-waterfall-title").evaluate((e) => {
        e.scrollIntoView({ block: "start" });
        // Below the sticky top bar.
        window.scrollBy(0, -(document.querySelector("header")?.getBoundingClientRect().height ?? 0) - 8);
      });
    },
  ],
  [
    "admin-tools",
    "admin@globex.test",
    { height: 1000 },
    async (p) => {
      await p.goto("/dev/agent/tools");
      await p.getByTestId("data-row").first().waitFor();
      // The chart's series arrives after the rows.
      await p.locator(".recharts-bar-rectangle").first().waitFor();
      await p.waitForTimeout(800);
    },
  ],
  [
    "admin-cost-zh-dark",
    "multi@tollgate.test",
    { height: 1300, locale: "zh", colorScheme: "dark" },
    async (p) => {
      await p.getByTestId("tenant-switcher").selectOption({ label: "Globex" });
      await p.waitForTimeout(500);
      await p.goto("/dev/agent/cost");
      await p.locator(".recharts-bar-rectangle").first().waitFor();
      await p.waitForTimeout(800);
    },
  ],
  [
    "admin-turns-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await p.goto("/dev/agent/turns");
      await p.getByTestId("data-row").first().waitFor();
      await belowTopBar(p, "row-count");
    },
  ],
  [
    "admin-turns-filters",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/turns");
      await p.getByTestId("data-row").first().waitFor();
      await p.getByTestId("preset-startedAt-7d").click();
      await p.waitForURL(/f\.startedAt\.from=/);
      await openFilter(p, "servedModel");
      await p.getByTestId("filter-servedModel").fill("gpt");
      await p.getByTestId("suggestions-servedModel").getByTestId("suggestion").first().waitFor();
    },
  ],
  [
    "admin-turns-unpriced",
    "admin@acme.test",
    {},
    async (p) => {
      await unpricedCall(p);
      await p.goto("/dev/agent/turns?f.costStatus=unpriced");
      await p.getByTestId("cost-unpriced").first().waitFor();
    },
  ],
  [
    "admin-cost-unpriced",
    "admin@acme.test",
    {},
    async (p) => {
      await unpricedCall(p);
      await p.goto("/dev/agent/cost");
      await p.locator(".recharts-bar-rectangle").first().waitFor();
    },
  ],
  [
    "admin-turns-enduser-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await unpricedCall(p, "customer-4711");
      await p.goto("/dev/agent/turns?f.endUser=customer-4711");
      await p.getByTestId("data-row").first().waitFor();
    },
  ],
  [
    "admin-runs",
    "admin@acme.test",
    {},
    async (p) => {
      // A long id (a client's own trace id) is cut with an ellipsis; the replay button stays in the box.
      await runOfCalls(p, "refund-4711-checkout-session-7f3c2a9e4b1d4e8a9c6f2d5b8e1a0c47");
      await p.goto("/dev/agent/runs");
      await p.getByTestId("data-row").first().waitFor();
    },
  ],
  [
    "admin-run-replay",
    "admin@acme.test",
    {},
    async (p) => {
      await runOfCalls(p, "refund-4712");
      await p.goto("/dev/agent/runs/refund-4712");
      await p.getByTestId("run-call").first().waitFor();
    },
  ],
  [
    "admin-runs-360",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await runOfCalls(p, "refund-4713");
      await p.goto("/dev/agent/runs");
      // Below the filters: the table, scrolled inside its own box.
      await p
        .getByTestId("data-row")
        .first()
        .evaluate((e) => e.scrollIntoView({ block: "center" }));
    },
  ],
  ["admin-keys-rotation", "admin@acme.test", {}, rotatedKey],
  ["admin-keys-rotation-360", "admin@acme.test", PHONE, rotatedKey],
  [
    "admin-limits-end-users",
    "admin@acme.test",
    { height: 1000 },
    async (p) => {
      // One end user with nothing priced ("unpriced"), one with a priced call and an unpriced one ("$… + 1 unpriced call").
      await unpricedCall(p, "customer-4711");
      await unpricedCall(p, "customer-4712");
      await pricedCall(p, "customer-4712");
      await p.goto("/dev/admin/limits");
      await p.getByTestId("end-user-limits").scrollIntoViewIfNeeded();
    },
  ],
  ["admin-alerts", "admin@acme.test", { height: 1560 }, alertsPage],
  ["admin-alerts-360", "admin@acme.test", PHONE, alertsPage],
  ["admin-limits-run-ceilings", "admin@acme.test", { height: 1000 }, runCeilingsPage],
  ["admin-limits-run-ceilings-360", "admin@acme.test", PHONE, (p) => runCeilingsPage(p, true)],
  ["admin-guardrails", "admin@acme.test", {}, guardrailsPage],
  ["admin-guardrails-360", "admin@acme.test", PHONE, guardrailsPage],
  [
    "admin-limits-assumed",
    "admin@acme.test",
    { height: 1000 },
    async (p) => {
      await p.goto("/dev/admin/limits");
      await p.getByTestId("assumed-price-row").first().scrollIntoViewIfNeeded();
    },
  ],
  [
    "admin-limits-assumed-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await p.goto("/dev/admin/limits");
      await p
        .getByTestId("assumed-price-row")
        .first()
        .evaluate((e) => e.scrollIntoView({ block: "center" }));
    },
  ],
  [
    "prompts-list",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/prompts");
      await p.getByTestId("data-row").first().waitFor();
    },
  ],
  [
    "prompt-versions",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/prompts/support/triage?v=2");
      await p.getByTestId("version-item").first().waitFor();
    },
  ],
  [
    "prompt-diff",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/prompts/support/triage?tab=diff&from=1&to=2");
      await p.getByTestId("version-item").first().waitFor();
      await p.waitForTimeout(300);
    },
  ],
  [
    "prompt-playground",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/prompts/support/triage?tab=playground");
      await p.getByTestId("playground-var-company").fill("Acme");
      await p.getByTestId("playground-var-ticket").fill("My parcel arrived broken.");
      await p.getByTestId("playground-run").click();
      await p.getByTestId("playground-result").waitFor();
    },
  ],
  [
    "prompt-metrics",
    "admin@acme.test",
    {},
    async (p) => {
      await p.goto("/dev/agent/prompts/support/triage?tab=metrics");
      await p.getByTestId("prompt-compare-table").waitFor();
    },
  ],
  [
    "admin-skills",
    "admin@acme.test",
    {},
    async (p) => {
      // A skill of its own, shown on its page, then archived (other specs' turns must not be offered it).
      const name = "refund-policy";
      const origin = new URL(p.url()).origin;
      const files = [
        {
          path: "SKILL.md",
          content:
            "---\nname: refund-policy\ndescription: How to answer refund questions: dates, amounts, the reply template\n---\n# Refunds\n\n1. Look up the order and its delivery date.\n2. Within 30 days, offer a refund; after, offer store credit.\n3. Answer with templates/reply.txt.\n",
        },
        { path: "reference/policy.md", content: "Refunds within 30 days of delivery." },
        { path: "templates/reply.txt", content: "Dear {{name}}, ..." },
      ];
      await p.request.post("/api/skills/import", { data: { files }, headers: { origin } });
      await p.goto(`/dev/agent/skills/${name}`);
      await p.getByTestId("skill-shown-instructions").waitFor();
      await p.getByTestId("skill-file").first().click();
      await p.getByTestId("skill-file-content").waitFor();
      skillsMade.names.push(name);
    },
  ],
  [
    "admin-skills-list-360",
    "admin@acme.test",
    PHONE,
    async (p) => {
      // The list on a phone, with a skill of its own in it (archived afterwards, as admin-skills's is).
      const name = "returns-triage";
      const origin = new URL(p.url()).origin;
      const files = [
        {
          path: "SKILL.md",
          content:
            "---\nname: returns-triage\ndescription: Sort a return request into refund, exchange or repair\n---\n# Returns\n\nAsk for the order number first.\n",
        },
      ];
      await p.request.post("/api/skills/import", { data: { files }, headers: { origin } });
      skillsMade.names.push(name);
      await p.goto("/dev/agent/skills");
      await p.getByTestId("skill-row").first().waitFor();
    },
  ],
  [
    "admin-code-run-settings",
    "admin@acme.test",
    {},
    async (p) => {
      // The code sandbox's setting on the members page (off by default).
      await p.goto("/dev/admin/members");
      const form = p.getByTestId("code-run-settings-form");
      await form.waitFor();
      await form.scrollIntoViewIfNeeded();
    },
  ],
  [
    "prompt-mobile",
    "admin@acme.test",
    PHONE,
    async (p) => {
      await p.goto("/dev/agent/prompts/support/triage");
      await p.getByTestId("version-item").first().waitFor();
    },
  ],
];

test.describe("the docs' screenshots", () => {
  for (const [name, email, view, act] of shots) {
    test(name, async ({ browser, baseURL }) => {
      const { context, page } = await shotSession(browser, baseURL!, email, view);
      try {
        await act(page);
        await page.screenshot({ path: shotPath(name) });
      } finally {
        await context.close();
      }
    });
  }

  test.afterAll(async ({ browser, baseURL }) => {
    if (
      mcp.registered ||
      keysMade.ids.length ||
      skillsMade.names.length ||
      guardrails.saved ||
      runCeilings.saved
    ) {
      const { context, page } = await shotSession(browser, baseURL!, "admin@acme.test");
      if (mcp.registered) await page.request.delete(`/api/mcp/servers/${mcp.registered}`);
      for (const id of keysMade.ids) await page.request.delete(`/api/keys/${id}`);
      for (const name of skillsMade.names)
        await page.request.delete(`/api/skills/${name}`, { headers: { origin: baseURL! } });
      if (guardrails.saved) await page.request.put("/api/governance/guardrails", { data: { rules: [] } });
      if (runCeilings.saved)
        await page.request.put("/api/governance/run-ceilings", { data: { scope: "tenant" } });
      await context.close();
    }
    await mcp.server?.close();
  });
});

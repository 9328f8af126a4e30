import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PageSchemaError, parsePageSchema } from "@/features/admin-tables/server/load";
import { orderCard, ordersTableCard } from "@/features/demo/server/order-cards";
import {
  attachedFiles,
  filesReducer,
  formatBytes,
  type PendingFile,
  precheck,
  roomFor,
} from "@/features/drawer/components/attachments";
import { cardCell, cardsOf, isSafeHref } from "@/features/drawer/components/cards/format";
import { applyEvent, newTurn, turnsFromHistory } from "@/features/drawer/components/chat-view";
import { addChip, chipRefs, inputsOf, removeChip } from "@/features/drawer/components/context-chips";
import type { HistoryMessage } from "@/features/drawer/components/types";
import { CONTEXT_TYPES, type ContextChip, MAX_CONTEXT_ITEMS } from "@/features/drawer/contracts";
import { type AgentCard, agentCard } from "@/lib/turns/cards";
import { renderCard } from "../helpers/render-card";

const words = { yes: "yes", no: "no", open: "Open" };

describe("a card's cells read like the app's pages", () => {
  it("numbers and money line up on the right in the app's formats, money exact on hover", () => {
    expect(cardCell("number", 1234567, "en", words)).toEqual({ text: "1,234,567", numeric: true });
    expect(cardCell("number", "12.345", "en", words)).toMatchObject({ text: "12.35", numeric: true });
    expect(cardCell("money", "1999.00", "en", words)).toEqual({
      text: "$1,999.00",
      numeric: true,
      title: "$1999",
    });
    expect(cardCell("money", "0.0001234", "zh", words).text).toBe("$0.0001234");
    expect(cardCell("money", null, "en", words).text).toBe("—");
  });

  it("times are localised, with the ISO time kept for the <time> element", () => {
    const at = "2026-03-15T14:05:00.000Z";
    const en = cardCell("datetime", at, "en", words);
    expect(en).toMatchObject({ numeric: false, dateTime: at });
    expect(en.text).toMatch(/2026/);
    expect(en.text).not.toBe(at);
    expect(cardCell("datetime", at, "zh", words).text).toMatch(/2026年/);
    expect(cardCell("datetime", "not a time", "en", words)).toEqual({ text: "not a time", numeric: false });
  });

  it("link cells are app paths or http(s) addresses; anything else is shown as text, never as a link", () => {
    expect(
      cardCell("link", "/dev/agent/turns?servedModel=gpt", "en", { ...words, label: "Open the ledger" }),
    ).toEqual({
      text: "Open the ledger",
      numeric: false,
      href: "/dev/agent/turns?servedModel=gpt",
      external: false,
      title: "/dev/agent/turns?servedModel=gpt",
    });
    expect(cardCell("link", "https://example.com/x", "en", words)).toMatchObject({
      text: "Open",
      external: true,
    });
    expect(cardCell("link", "javascript:alert(1)", "en", words)).toEqual({
      text: "javascript:alert(1)",
      numeric: false,
    });
    expect(isSafeHref("//evil.example/x")).toBe(false);
  });

  it("text cells show booleans in words and an empty value as a dash", () => {
    expect(cardCell(undefined, true, "en", words).text).toBe("yes");
    expect(cardCell("text", null, "en", words).text).toBe("—");
    expect(cardCell("text", 42, "en", words)).toEqual({ text: "42", numeric: false });
  });

  it("a stored tool message's cards are checked again; a bad one is left out, the others stay", () => {
    const good = { kind: "links", links: [{ label: "Ledger", href: "/dev/agent/turns" }] };
    const bad = { kind: "links", links: [{ label: "x", href: "javascript:alert(1)" }] };
    expect(cardsOf({ cards: [good, bad, { kind: "chart" }] })).toEqual([good]);
    expect(cardsOf(undefined)).toEqual([]);
    expect(cardsOf({ cards: "nope" })).toEqual([]);
  });
});

describe("cards render", () => {
  const render = (card: AgentCard) => renderCard(card);
  const orders = [
    {
      orderId: "A-1003",
      customer: "Wile E. Coyote",
      status: "open",
      totalUsd: "1999.00",
      createdAt: "2026-03-15T14:05:00.000Z",
    },
  ];

  it("a table card: typed headers, money right-aligned in tabular figures, in its own scroll box", () => {
    const html = render(agentCard.parse(ordersTableCard(orders, { status: "open" })));
    expect(html).toContain('data-kind="table"');
    expect(html).toContain("Orders (open)");
    expect(html).toContain('data-testid="agent-card-table-scroll"');
    expect(html).toMatch(
      /<td data-type="money" class="[^"]*text-right[^"]*tabular-nums[^"]*"><span title="\$1999">\$1,999.00<\/span>/,
    );
    expect(html).toMatch(/<time dateTime="2026-03-15T14:05:00.000Z"/);
  });

  it("a table card's link opens the app path it names", () => {
    const html = render(
      agentCard.parse({
        kind: "table",
        columns: [
          { key: "model", label: "Model" },
          { key: "cost", label: "Cost", type: "money" },
          { key: "ledger", label: "Ledger", type: "link" },
        ],
        rows: [
          {
            model: "gpt-4o",
            cost: "12.5",
            ledger: "/dev/agent/turns?servedModel=gpt-4o",
            ledgerLabel: "Turns",
          },
        ],
        link: { label: "Open the ledger with these filters", href: "/dev/agent/turns?servedModel=gpt-4o" },
      }),
    );
    expect(html).toContain('<a data-testid="agent-card-link" class=');
    expect(html).toContain('href="/dev/agent/turns?servedModel=gpt-4o"');
    expect(html).toContain(">Turns</a>");
    expect(html).toContain("Open the ledger with these filters");
  });

  it("an order card offers its order as context, by keyboard and with a label that names it", () => {
    const html = render(agentCard.parse(orderCard(orders[0]!)));
    expect(html).toContain('data-kind="kv"');
    expect(html).toContain("$1,999.00");
    expect(html).toMatch(
      /<button type="button" data-testid="agent-card-use-context" aria-label="Use Order A-1003 as context for your next message"/,
    );
  });

  it("where the drawer cannot send (no tenant), the card has no context button", () => {
    const html = renderCard(agentCard.parse(orderCard(orders[0]!)), { canAsk: false });
    expect(html).not.toContain("agent-card-use-context");
  });
});

describe("context chips", () => {
  const chip = (id: string, label = `Turn ${id}`): ContextChip => ({ type: "turn", id, label });

  it("the same object twice is one chip (its label refreshed); past the limit nothing is added", () => {
    let chips: ContextChip[] = [];
    chips = addChip(chips, chip("a")).chips;
    chips = addChip(chips, chip("a", "Turn a, renamed")).chips;
    expect(chips).toEqual([chip("a", "Turn a, renamed")]);
    for (const id of ["b", "c", "d", "e"]) chips = addChip(chips, chip(id)).chips;
    expect(chips).toHaveLength(MAX_CONTEXT_ITEMS);
    const over = addChip(chips, chip("f"));
    expect(over.full).toBe(true);
    expect(over.chips).toBe(chips);
    expect(addChip(chips, { type: "order", id: "a", label: "Order a" }).full).toBe(true);
    expect(removeChip(chips, "turn:c").map((c) => c.id)).toEqual(["a", "b", "d", "e"]);
  });

  it("a request carries references only; the server names them", () => {
    expect(chipRefs([chip("a"), { type: "order", id: "A-1001", label: "Order A-1001" }])).toEqual([
      { type: "turn", id: "a" },
      { type: "order", id: "A-1001" },
    ]);
  });

  it("a stored message's chips and files are read back; malformed entries are left out", () => {
    expect(
      inputsOf({
        contextBlocks: ["<context …>"],
        context: [chip("a"), { type: "planet", id: "x", label: "?" }, { type: "order", id: "A-1" }],
        attachments: [{ id: "f1", name: "notes.md", type: "text/markdown", size: 12 }, { id: 3 }],
      }),
    ).toEqual({
      context: [chip("a"), { type: "order", id: "A-1", label: "A-1" }],
      attachments: [{ id: "f1", name: "notes.md", type: "text/markdown", size: 12 }],
    });
    expect(inputsOf(null)).toEqual({});
    expect(inputsOf({ context: "x" })).toEqual({});
  });

  it("the page-schema format's assistant types are the drawer's context types", () => {
    const schema = JSON.parse(readFileSync("schemas/page.schema.json", "utf8"));
    expect(schema.properties.assistant.properties.type.enum).toEqual([...CONTEXT_TYPES]);
  });

  it("a page's assistant needs a detail view and an id field its rows have", () => {
    const good = JSON.parse(readFileSync("schemas/agent-audit.schema.json", "utf8"));
    expect(parsePageSchema(good, "x/agent-audit.schema.json", ["agentAudit"]).assistant).toEqual({
      type: "audit_turn",
      idField: "turnId",
    });
    const file = "x/agent-audit.schema.json";
    expect(() =>
      parsePageSchema({ ...good, assistant: { type: "audit_turn", idField: "nope" } }, file, ["agentAudit"]),
    ).toThrow(/assistant.idField is "nope"/);
    expect(() =>
      parsePageSchema({ ...good, assistant: { type: "planet", idField: "turnId" } }, file, ["agentAudit"]),
    ).toThrow(PageSchemaError);
    const { detail: _d, ...noDetail } = good;
    expect(() => parsePageSchema(noDetail, file, ["agentAudit"])).toThrow(/assistant needs a detail view/);
  });
});

describe("the chat model keeps what came with a message", () => {
  const order: ContextChip = { type: "order", id: "A-1001", label: "Order A-1001" };
  const file = {
    id: "0193a000-0000-7000-8000-000000000001",
    name: "notes.md",
    type: "text/markdown",
    size: 120,
  };

  it("a new turn shows its chips and files on the user's bubble and keeps them for Retry", () => {
    const turn = newTurn("what about this one?", { context: [order], attachments: [file] });
    expect(turn.inputs).toEqual({ context: [order], attachments: [file] });
    expect(turn.parts[0]).toMatchObject({ type: "user", inputs: { context: [order], attachments: [file] } });
    expect(newTurn("plain").parts[0]).not.toHaveProperty("inputs");
  });

  it("a tool_result's cards go under its tool card, live", () => {
    const table = agentCard.parse(ordersTableCard([], {}));
    let turn = newTurn("show my open orders");
    turn = applyEvent(turn, {
      type: "tool_call",
      call: { id: "c1", name: "query_orders", args: { status: "open" } },
      round: 1,
    });
    turn = applyEvent(turn, {
      type: "tool_result",
      callId: "c1",
      name: "query_orders",
      ok: true,
      result: '{"count":0,"orders":[]}',
      durationMs: 3,
      cards: [table],
    });
    expect(turn.parts[1]).toMatchObject({ type: "tool", tool: { status: "ok", cards: [table] } });
  });

  it("after a reload: cards from the tool message's data, chips and files from the user message's", () => {
    const kv = agentCard.parse(
      orderCard({
        orderId: "A-1001",
        customer: "Wile E. Coyote",
        status: "open",
        totalUsd: "129.90",
        createdAt: "2026-03-01T00:00:00Z",
      }),
    );
    const at = "2026-03-01T00:00:00Z";
    const messages: HistoryMessage[] = [
      {
        id: "m1",
        turnId: "t1",
        role: "user",
        content: "look up order A-1001",
        data: { context: [order], attachments: [file], contextBlocks: ["…"] },
        createdAt: at,
      },
      {
        id: "m2",
        turnId: "t1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "get_order", args: { orderId: "A-1001" } }],
        createdAt: at,
      },
      {
        id: "m3",
        turnId: "t1",
        role: "tool",
        toolCallId: "c1",
        name: "get_order",
        content: '{"orderId":"A-1001"}',
        data: { cards: [kv] },
        createdAt: at,
      },
    ];
    const [turn] = turnsFromHistory(messages);
    expect(turn!.inputs).toEqual({ context: [order], attachments: [file] });
    expect(turn!.parts[0]).toMatchObject({ type: "user", inputs: { context: [order], attachments: [file] } });
    expect(turn!.parts[1]).toMatchObject({ type: "tool", tool: { status: "ok", cards: [kv] } });
  });
});

describe("attachments in the composer", () => {
  const MB = 1024 * 1024;

  it("the browser's pre-check refuses a wrong type and a too-big file in the server's own words", () => {
    expect(precheck({ name: "cat.png", type: "image/png", size: 4 * MB })).toBeNull();
    expect(precheck({ name: "big.png", type: "image/png", size: 5 * MB + 1 })).toBe(
      "big.png is 5 MB; images may be at most 5 MB",
    );
    expect(precheck({ name: "report.pdf", type: "application/pdf", size: 10 * MB + 1 })).toBe(
      "report.pdf is 10 MB; text and PDF files may be at most 10 MB",
    );
    const unsupported =
      "tool.exe is not a file type the assistant takes; attach PNG, JPEG, WebP or GIF images; text, Markdown, CSV, JSON or PDF files";
    expect(precheck({ name: "tool.exe", type: "application/x-msdownload", size: 10 })).toBe(unsupported);
    expect(precheck({ name: "clip.mp4", type: "video/mp4", size: 10 })).toMatch(/not a file type/);
    expect(precheck({ name: "vector.svg", type: "image/svg+xml", size: 10 })).toMatch(/not a file type/);
    // Browsers name Markdown and CSV files inconsistently: the extension is enough.
    expect(precheck({ name: "notes.md", type: "", size: 10 })).toBeNull();
    expect(precheck({ name: "data.csv", type: "application/vnd.ms-excel", size: 10 })).toBeNull();
  });

  it("sizes read as the server's messages write them", () => {
    expect(formatBytes(812)).toBe("812 bytes");
    expect(formatBytes(14_540)).toBe("14 KB");
    expect(formatBytes(3.5 * MB)).toBe("3.5 MB");
  });

  it("only attached files are sent; a refused one stays on screen with its reason and takes no room", () => {
    const pending = (key: string): PendingFile => ({
      key,
      name: `${key}.md`,
      type: "text/markdown",
      size: 10,
      status: "uploading",
      progress: 0,
    });
    let files = ["a", "b", "c"].reduce<PendingFile[]>(
      (all, key) => filesReducer(all, { type: "add", file: pending(key) }),
      [],
    );
    files = filesReducer(files, { type: "progress", key: "a", progress: 1.7 });
    expect(files[0]!.progress).toBe(1);
    const uploaded = { id: "f-a", name: "a.md", type: "text/markdown", size: 10 };
    files = filesReducer(files, { type: "done", key: "a", uploaded });
    files = filesReducer(files, { type: "failed", key: "b", error: "the storage quota is used up" });
    expect(attachedFiles(files)).toEqual([uploaded]);
    expect(files[1]).toMatchObject({ status: "failed", error: "the storage quota is used up" });
    expect(roomFor(files)).toBe(3);
    files = filesReducer(files, { type: "remove", key: "c" });
    expect(files.map((f) => f.key)).toEqual(["a", "b"]);
    expect(filesReducer(files, { type: "clear" })).toEqual([]);
  });
});

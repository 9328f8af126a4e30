import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { AgentDrawerProvider } from "@/features/drawer/components/drawer-context";
import { AdminHomeTiles, MemberHomeTiles, ReviewItemsTile } from "@/features/home/components";
import type { AdminHome, MemberHome, PeriodUsage } from "@/features/home/server";
import { translator } from "@/lib/i18n/messages";

const t = translator("en");
function render(element: ReactElement): string {
  // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
  const drawer = createElement(AgentDrawerProvider, { canAsk: true, children: element });
  // biome-ignore lint/correctness/noChildrenProp: as above
  return renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: drawer }));
}
const usage = (u: Partial<PeriodUsage>): PeriodUsage => ({
  requests: 0,
  failures: 0,
  cost: "0",
  unpriced: 0,
  ...u,
});
/** The element with this data-testid, as HTML (up to its first closing tag of that name). */
const byTestId = (html: string, id: string) => {
  const at = html.indexOf(`data-testid="${id}"`);
  expect(at, `no ${id} in the page`).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf("<", at), html.indexOf("</", at));
};

const adminHome = (over: Partial<AdminHome> = {}): AdminHome => ({
  today: "2026-03-15",
  monthStart: "2026-03-01",
  usage: {
    today: usage({ requests: 40, failures: 3, cost: "12.5", unpriced: 2 }),
    month: usage({ requests: 3, cost: "0", unpriced: 3 }),
  },
  budget: null,
  topModels: [{ model: "gpt-4o & co", cost: "10" }],
  topKeys: [{ id: "01a24b64-3900-76e6-b0cf-0f1d79d4d224", label: "Billing", cost: "2.5" }],
  alerts: { count: 0, capped: false, latest: [] },
  ...over,
});

describe("the admin home's tiles", () => {
  it("shows unpriced calls beside the priced spend, and never an all-unpriced period as $0", () => {
    const html = render(createElement(AdminHomeTiles, { home: adminHome(), t, locale: "en" }));
    expect(byTestId(html, "home-spend-today-figure-amount")).toContain("$12.50");
    expect(byTestId(html, "home-spend-today-figure-unpriced")).toContain("+ 2 unpriced");
    // Three calls, all unpriced: the amount is unknown, not $0.00.
    expect(byTestId(html, "home-spend-month-figure-amount")).toContain("—");
    expect(byTestId(html, "home-spend-month-figure-unpriced")).toContain("+ 3 unpriced");
    expect(byTestId(html, "home-failure-rate")).toContain("7.5%");
  });

  it("links each figure to the page filtered to it", () => {
    const html = render(createElement(AdminHomeTiles, { home: adminHome(), t, locale: "en" }));
    const href = (id: string) =>
      byTestId(html, id)
        .match(/href="([^"]*)"/)?.[1]
        ?.replaceAll("&amp;", "&");
    expect(href("home-spend-today-link")).toBe("/dev/agent/cost?f.day.from=2026-03-15");
    expect(href("home-spend-month-link")).toBe("/dev/agent/cost?f.day.from=2026-03-01");
    expect(href("home-calls-link")).toBe("/dev/agent/turns?f.startedAt.from=2026-03-15");
    expect(href("home-failures-link")).toBe("/dev/agent/turns?segment=failed&f.startedAt.from=2026-03-15");
    expect(href("home-model")).toBe(
      "/dev/agent/turns?f.servedModel=gpt-4o+%26+co&f.startedAt.from=2026-03-15",
    );
    expect(href("home-key")).toBe(
      "/dev/agent/turns?f.apiKeyId=01a24b64-3900-76e6-b0cf-0f1d79d4d224&f.startedAt.from=2026-03-15",
    );
    expect(href("home-alerts-link")).toBe("/dev/admin/alerts");
  });

  it("says when there is no budget, and shows a budget against its limits when there is one", () => {
    const none = render(createElement(AdminHomeTiles, { home: adminHome(), t, locale: "en" }));
    expect(byTestId(none, "home-budget-daily")).toContain('data-budget="none"');
    expect(none).toContain("No budget");
    const budget = {
      requestsPerMinute: null,
      tokensPerMinute: null,
      dailySoftUsd: "10",
      dailyHardUsd: "20",
      monthlySoftUsd: null,
      monthlyHardUsd: null,
      spentToday: "15",
      spentThisMonth: "15",
    };
    const set = render(createElement(AdminHomeTiles, { home: adminHome({ budget }), t, locale: "en" }));
    // Past the soft limit, under the hard one.
    expect(byTestId(set, "home-budget-daily")).toContain('data-tone="soft"');
    expect(set).toContain("$15.00 of $20.00");
    expect(byTestId(set, "home-budget-monthly")).toContain('data-budget="none"');
  });
});

describe("the member home's tiles", () => {
  it("lists the member's conversations as buttons that open them in the drawer", () => {
    const home: MemberHome = {
      today: "2026-03-15",
      monthStart: "2026-03-01",
      usage: {
        today: usage({ requests: 2, cost: "0.1", unpriced: 1 }),
        month: usage({ requests: 2, cost: "0.1" }),
      },
      limits: null,
      conversations: [
        { id: "c-1", title: "Refund for order 1042", updatedAt: new Date("2026-03-15T09:00:00Z") },
      ],
    };
    const html = render(createElement(MemberHomeTiles, { home, t, locale: "en" }));
    expect(byTestId(html, "home-conversation")).toContain('data-conversation-id="c-1"');
    expect(html).toContain("Refund for order 1042");
    expect(byTestId(html, "home-my-today-spend-unpriced")).toContain("+ 1 unpriced");
    expect(byTestId(html, "home-my-today-calls")).toContain("Calls: 2");
  });
});

describe("the review items tile", () => {
  it("counts the open items across queues and links each queue with open items into its review view", () => {
    const queues = [
      { id: "q-1", name: "Thumbs down", open: 4 },
      { id: "q 2", name: "Failed", open: 1 },
      { id: "q-3", name: "Sampled", open: 0 },
    ];
    const html = render(createElement(ReviewItemsTile, { queues, t, locale: "en" }));
    expect(byTestId(html, "home-reviews-count")).toContain(">5");
    expect(html).toContain('href="/review/q-1"');
    expect(html).toContain('href="/review/q%202"');
    expect(html).not.toContain('href="/review/q-3"');
    expect(byTestId(html, "home-reviews-link")).toContain('href="/review"');
  });

  it("says when nothing waits, and sits among the admin's tiles when the page adds it", () => {
    const tile = createElement(ReviewItemsTile, { queues: [], t, locale: "en" });
    expect(render(tile)).toContain("Nothing waiting for review.");
    const home = render(createElement(AdminHomeTiles, { home: adminHome(), t, locale: "en", extra: tile }));
    expect(home).toContain('data-testid="home-reviews"');
  });
});

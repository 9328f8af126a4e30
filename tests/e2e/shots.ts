import type { Browser, Page } from "@playwright/test";
import { signInAs } from "./pages";

/**
 * The docs' screenshots come from the Playwright specs. Every run renders them into test-results/screens;
 * E2E_SCREENSHOTS=1 writes them into docs/screenshots instead, for the README and the docs to show.
 */
export const SHOTS = process.env.E2E_SCREENSHOTS === "1";

/** Where the screenshot `name` goes on this run. */
export const shotPath = (name: string) =>
  `${SHOTS ? "docs/screenshots" : "test-results/screens"}/${name}.png`;

export type ShotView = {
  width?: number;
  height?: number;
  colorScheme?: "light" | "dark";
  locale?: "en" | "zh";
};

/** A browser context of its own at the shot's size, theme and language, signed in as `email` (null: signed out). */
export async function shotSession(
  browser: Browser,
  baseURL: string,
  email: string | null,
  { width = 1280, height = 800, colorScheme = "light", locale = "en" }: ShotView = {},
) {
  const context = await browser.newContext({ baseURL, viewport: { width, height }, colorScheme });
  if (locale !== "en") await context.addCookies([{ name: "tollgate-locale", value: locale, url: baseURL }]);
  const page: Page = await context.newPage();
  if (email) await signInAs(page, email);
  return { context, page };
}

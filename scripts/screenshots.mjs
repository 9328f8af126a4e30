// Takes the README's screenshots from a running app: `npm start` in one shell, then `node scripts/screenshots.mjs`.
import { chromium } from "@playwright/test";

const base = process.env.BASE_URL ?? "http://127.0.0.1:3000";
const out = "docs/screenshots";
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

async function session(email, { width = 1280, height = 800, colorScheme = "light", locale = "en" } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  if (locale !== "en") await context.addCookies([{ name: "tollgate-locale", value: locale, url: base }]);
  const page = await context.newPage();
  if (email) {
    await page.goto(`${base}/login`);
    await page.getByLabel(/email|邮箱/i).fill(email);
    await page.getByLabel(/password|密码/i).fill("tollgate-demo");
    await page.getByRole("button", { name: /sign in|登录/i }).click();
    await page.waitForURL(`${base}/`);
  }
  return { context, page };
}

const shots = [
  [
    "login",
    null,
    {},
    async (p) => {
      await p.goto(`${base}/login`);
      await p.getByLabel(/password/i).fill("wrong");
      await p.getByLabel(/email/i).fill("member@acme.test");
      await p.getByRole("button", { name: /sign in/i }).click();
      await p.getByTestId("login-error").waitFor();
    },
  ],
  ["home", "admin@acme.test", {}, async () => {}],
  ["home-dark", "multi@tollgate.test", { colorScheme: "dark" }, async () => {}],
  ["home-zh", "root@tollgate.test", { locale: "zh" }, async () => {}],
  ["forbidden", "member@acme.test", {}, async (p) => p.goto(`${base}/dev/agent/turns`)],
  ["admin-turns", "root@tollgate.test", {}, async (p) => p.goto(`${base}/dev/agent/turns`)],
  ["home-mobile", "multi@tollgate.test", { width: 360, height: 740 }, async () => {}],
];

for (const [name, email, options, act] of shots) {
  const { context, page } = await session(email, options);
  await act(page);
  await page.screenshot({ path: `${out}/${name}.png` });
  await context.close();
  console.log(`${out}/${name}.png`);
}
await browser.close();

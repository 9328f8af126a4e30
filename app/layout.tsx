import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { I18nProvider } from "@/components/i18n";
import { getLocale, getTheme } from "@/lib/i18n/server";
import "./globals.css";

export const metadata: Metadata = {
  icons: { icon: "/favicon.svg" },
  // Each page names itself (lib/i18n/metadata.ts): "Usage ledger · Tollgate"; a page that does not reads "Tollgate".
  title: { template: "%s · Tollgate", default: "Tollgate" },
  description: "Multi-tenant governance for AI agents",
};

// Before first paint: follow the saved theme, else the system's, so dark mode never flashes white.
const themeScript = `(function(){try{var m=document.cookie.match(/(?:^|; )tollgate-theme=(light|dark)/);var d=m?m[1]==="dark":matchMedia("(prefers-color-scheme: dark)").matches;document.documentElement.classList.toggle("dark",d)}catch(e){}})()`;

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [locale, theme, requestHeaders] = await Promise.all([getLocale(), getTheme(), headers()]);
  // The CSP's nonce for this response (set by proxy.ts), without which the browser would refuse the script.
  const nonce = requestHeaders.get("x-nonce") ?? undefined;
  return (
    <html
      lang={locale === "zh" ? "zh-CN" : "en"}
      className={theme === "dark" ? "dark" : undefined}
      suppressHydrationWarning
    >
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed script of ours, no user input */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="min-h-screen">
        <I18nProvider locale={locale}>{children}</I18nProvider>
      </body>
    </html>
  );
}

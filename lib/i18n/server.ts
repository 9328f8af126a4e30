import { cookies, headers } from "next/headers";
import { LOCALE_COOKIE, type Locale, pickLocale, THEME_COOKIE, type Translate, translator } from "./messages";

export async function getLocale(): Promise<Locale> {
  return pickLocale((await cookies()).get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
}

export async function getTranslator(): Promise<Translate> {
  return translator(await getLocale());
}

export async function getTheme(): Promise<"light" | "dark" | null> {
  const value = (await cookies()).get(THEME_COOKIE)?.value;
  return value === "light" || value === "dark" ? value : null;
}

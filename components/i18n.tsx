"use client";

import { createContext, type ReactNode, useContext, useMemo } from "react";
import { type Locale, type Translate, translator } from "@/lib/i18n/messages";

const I18nContext = createContext<{ locale: Locale; t: Translate }>({ locale: "en", t: translator("en") });

export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  const value = useMemo(() => ({ locale, t: translator(locale) }), [locale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export const useI18n = () => useContext(I18nContext);

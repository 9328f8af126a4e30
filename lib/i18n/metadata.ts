import "server-only";
import type { Metadata } from "next";
import type { MessageKey } from "./messages";
import { getTranslator } from "./server";

/**
 * A page's `generateMetadata`: its title in the reader's language; the root layout's template adds
 * " · Tollgate", so a tab reads "Usage ledger · Tollgate".
 */
export const titleMetadata = (key: MessageKey) => async (): Promise<Metadata> => ({
  title: (await getTranslator())(key),
});

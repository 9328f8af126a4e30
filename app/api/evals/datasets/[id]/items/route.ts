import { getDb } from "@/db";
import { appendItemsInput } from "@/features/evals/contracts";
import { evalAccess } from "@/features/evals/server/access";
import { appendItems } from "@/features/evals/server/datasets";
import { parseJsonl } from "@/features/evals/server/import";
import type { NewItem } from "@/features/evals/server/types";
import { withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

type Params = { id: string };

/**
 * Appends items: `{items: [...]}`, or JSONL as `{jsonl: "<one item per line>"}` (a JSON body, as every /api
 * route takes). A bad line is named ("line 3: input: …") and then nothing is added.
 */
export const POST = withUser<Params>(async (req, { auth, params }) => {
  const body = await readJson(req, appendItemsInput);
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const items = body.jsonl !== undefined ? parseJsonl(body.jsonl) : (body.items as NewItem[]);
  const { ids } = await appendItems(db, tenantId, params.id, items);
  return Response.json({ added: ids.length, ids }, { status: 201 });
});

// The schema pages' API (/api/schema/<key>/<action>), called in-process the way an admin page calls it: rows,
// count, metrics, series, detail, suggest and the CSV export, with filters, sort and cursor in the query string.
// The caller is whoever tests/helpers/session.ts signed in (vitest runs a file's vi.mock calls before its imports,
// so the route below already reads the mocked session).
import * as schemaRoute from "@/app/api/schema/[key]/[[...action]]/route";

/** The route's segments for a path such as `agent-turns/rows?f.servedModel=gpt`: the page key, then the action. */
export function schemaParams(path: string): { key: string; action: string[] } {
  const [key, ...action] = path.split("?")[0]!.split("/");
  return { key: key!, action };
}

/** GET /api/schema/<path>, the response as it is (a status to check, a CSV export to read). */
export async function schemaGet(path: string): Promise<Response> {
  return schemaRoute.GET(new Request(`http://app/api/schema/${path}`), {
    params: Promise.resolve(schemaParams(path)),
  });
}

/** GET /api/schema/<path>, read as JSON: its status and body. */
export async function schemaJson(path: string) {
  const res = await schemaGet(path);
  return { status: res.status, body: await res.json() };
}

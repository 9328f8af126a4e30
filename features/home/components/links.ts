// Where each tile of the home leads: the pages its figures come from, with the URL filters those pages read
// (the ledger's f.startedAt.from, segment and f.servedModel / f.apiKeyId; the cost dashboard's f.day.from).

const LEDGER = "/dev/agent/turns";
const COST = "/dev/agent/cost";

const withQuery = (path: string, params: Record<string, string>) =>
  `${path}?${new URLSearchParams(params).toString()}`;

/** The ledger's calls since the start of `day` (UTC), optionally only the failed ones. */
export const ledgerSince = (day: string, opts: { failed?: boolean } = {}) =>
  withQuery(LEDGER, { ...(opts.failed ? { segment: "failed" } : {}), "f.startedAt.from": day });

/** The ledger's calls of one model since `day` (the ledger's model filter contains the text). */
export const ledgerModel = (day: string, model: string) =>
  withQuery(LEDGER, { "f.servedModel": model, "f.startedAt.from": day });

/** The ledger's calls of one API key since `day`, by the key's id (as the keys list links). */
export const ledgerKey = (day: string, keyId: string) =>
  withQuery(LEDGER, { "f.apiKeyId": keyId, "f.startedAt.from": day });

/** The cost dashboard from `day` (a whole UTC day). */
export const costSince = (day: string) => withQuery(COST, { "f.day.from": day });

export const ALERTS_PAGE = "/dev/admin/alerts";
export const LIMITS_PAGE = "/dev/admin/limits";
/** The review queues the viewer may work, and one queue's review view (which claims their next item). */
export const REVIEW_PAGE = "/review";
export const reviewQueue = (queueId: string) => `/review/${encodeURIComponent(queueId)}`;

/**
 * The benchmark's baseline for /v1: the same Next route machinery, doing only the forwarding call to the upstream
 * named by BENCH_UPSTREAM (no auth, no ledger). 404 without it.
 */
const PREFIX = "/api/upstream";

export async function POST(req: Request): Promise<Response> {
  const upstream = process.env.BENCH_UPSTREAM;
  if (!upstream) return new Response(null, { status: 404 });
  const res = await fetch(upstream + new URL(req.url).pathname.slice(PREFIX.length), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: req.headers.get("authorization") ?? "" },
    body: await req.text(),
    signal: req.signal,
  });
  return new Response(await res.text(), {
    status: res.status,
    headers: { "content-type": res.headers.get("content-type") ?? "application/json" },
  });
}

/**
 * Benchmark baseline (bench/gateway-overhead.ts): the same Next route machinery as /v1, doing only the forwarding
 * call to the upstream named by TOLLGATE_BENCH_UPSTREAM — no auth, no ledger. 404 unless TOLLGATE_BENCH_ROUTES=1.
 */
const PREFIX = "/api/bench/upstream";

export async function POST(req: Request): Promise<Response> {
  const upstream = process.env.TOLLGATE_BENCH_UPSTREAM;
  if (process.env.TOLLGATE_BENCH_ROUTES !== "1" || !upstream) return new Response(null, { status: 404 });
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

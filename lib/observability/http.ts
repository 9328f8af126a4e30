import "server-only";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { endSpan, scopedContext, type Tracing, tracing } from "@/lib/core/process/trace";
import type { ApiHandler, ApiRequest } from "@/lib/http/exchange";

/**
 * The HTTP server span of a request, and the scope its turn's spans hang in. Next makes its own server span for
 * every request (it honours `traceparent` through the propagator we register): inside one, ours is not made and
 * the turn hangs under Next's. Outside Next (the lean server, tests), ours is the root, a child of the caller's
 * `traceparent` when it sent one. Tracing off: the handler runs as it is.
 */
function open(
  t: Tracing,
  name: string,
  method: string,
  path: string,
  carrier: unknown,
  getter: TextMapGetter,
) {
  const active = context.active();
  const underNext = trace.getSpan(active) !== undefined;
  const parent: Context = underNext ? active : propagation.extract(ROOT_CONTEXT, carrier, getter);
  const span: Span | null = underNext
    ? null
    : t.tracer.startSpan(
        name,
        {
          kind: SpanKind.SERVER,
          attributes: { "http.request.method": method, "url.path": path, "http.route": routeOf(path) },
        },
        parent,
      );
  return { span, ctx: scopedContext(span ? trace.setSpan(parent, span) : parent) };
}

const nodeHeaders: TextMapGetter<ApiRequest["headers"]> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

const webHeaders: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** A path as a route (ids left out, so span names stay few). */
const routeOf = (path: string) => path.replace(/^(\/v1\/(?:models|prompts))\/.+$/, "$1/{id}");

const finish = (span: Span | null, status: number) => {
  if (!span) return;
  span.setAttribute("http.response.status_code", status);
  endSpan(span, status >= 500 ? String(status) : undefined);
};

/** The /v1 API (transport-neutral) with its HTTP server span; a streamed answer runs in the request's context. */
export function tracedApi(handler: ApiHandler): ApiHandler {
  return (req) => {
    const t = tracing();
    return t ? tracedCall(t, req, handler) : handler(req);
  };
}

async function tracedCall(t: Tracing, req: ApiRequest, handler: ApiHandler) {
  const { span, ctx } = open(
    t,
    `${req.method} ${routeOf(req.path)}`,
    req.method,
    req.path,
    req.headers,
    nodeHeaders,
  );
  let answer: Awaited<ReturnType<ApiHandler>>;
  try {
    answer = await context.with(ctx, () => handler(req));
  } catch (error) {
    finish(span, 500);
    throw error;
  }
  const { body } = answer;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) finish(span, answer.status);
  else answer.body = inContext(ctx, body, () => finish(span, answer.status));
  return answer;
}

/** Iterates `source` inside `ctx` (each step of a generator runs in the context of its `next()` call). */
async function* inContext<T>(ctx: Context, source: AsyncIterable<T>, done: () => void): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const r = await context.with(ctx, () => it.next());
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await context.with(ctx, async () => it.return?.());
    done();
  }
}

/**
 * A web route handler (the drawer's turn endpoint) with its HTTP server span, ended when its body has been sent:
 * the turn runs in the request's context (the SSE stream starts its loop inside the handler).
 */
export function tracedRoute<A extends unknown[]>(
  handler: (req: Request, ...rest: A) => Promise<Response>,
): (req: Request, ...rest: A) => Promise<Response> {
  return async (req, ...rest) => {
    const t = tracing();
    if (!t) return handler(req, ...rest);
    const path = new URL(req.url).pathname;
    const { span, ctx } = open(t, `${req.method} ${path}`, req.method, path, req.headers, webHeaders);
    let res: Response;
    try {
      res = await context.with(ctx, () => handler(req, ...rest));
    } catch (error) {
      finish(span, 500);
      throw error;
    }
    if (!span || !res.body) {
      finish(span, res.status);
      return res;
    }
    const status = res.status;
    const ended = new TransformStream<Uint8Array, Uint8Array>({ flush: () => finish(span, status) });
    res.body.pipeTo(ended.writable).catch(() => finish(span, status));
    return new Response(ended.readable, { status, statusText: res.statusText, headers: res.headers });
  };
}

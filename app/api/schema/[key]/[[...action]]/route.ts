import {
  csvStream,
  pageQueryFrom,
  suggestFieldUnknown,
  suggestQueryFrom,
} from "@/features/admin-tables/server/query";
import { withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import { LOCALE_COOKIE, pickLocale } from "@/lib/i18n/messages";
import { container } from "@/server/container";

type Params = { key: string; action?: string[] };

/**
 * Data for schema-driven pages, one route for all of them, guarded by each page's roles:
 * /api/schema/:key (the schema), …/rows, …/count, …/metrics, …/series?chart=, …/detail/:id, …/export (CSV),
 * …/suggest?field=&q= (a filter's values from the data, this tenant's only).
 */
export const GET = withUser<Params>(async (req, { auth, params, requestId }) => {
  const { page, provider, ctx } = container().pages.open(params.key, auth);
  const [action = "", id] = params.action ?? [];
  const url = new URL(req.url);
  switch (action) {
    case "":
      return Response.json({ schema: page });
    case "rows":
      return Response.json(await provider.rows(ctx, pageQueryFrom(url, page)));
    case "count":
      return Response.json(await provider.count(ctx, pageQueryFrom(url, page)));
    case "metrics":
      return Response.json({
        metrics: await provider.metrics(ctx, pageQueryFrom(url, page), page.metrics ?? []),
      });
    case "series": {
      const chart = page.charts?.find((c) => c.key === url.searchParams.get("chart"));
      if (!chart) throw notFound("chart");
      return Response.json(await provider.series(ctx, pageQueryFrom(url, page), chart));
    }
    case "suggest": {
      const { field, q, limit } = suggestQueryFrom(url, page, ctx);
      const values = await provider.suggest?.(ctx, field, q, limit);
      // A field the page declares but its provider cannot suggest for is as unknown as any other.
      if (!values) throw suggestFieldUnknown(field);
      return Response.json({ values });
    }
    case "detail": {
      const found = id ? await provider.detail(ctx, id) : null;
      if (!found) throw notFound("row");
      return Response.json(found);
    }
    case "export": {
      const query = pageQueryFrom(url, page);
      const cookie = req.headers.get("cookie")?.match(new RegExp(`(?:^|; )${LOCALE_COOKIE}=(en|zh)`))?.[1];
      const locale = pickLocale(cookie, req.headers.get("accept-language"));
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
      // Awaited here: a query the provider refuses is still a JSON error, not a 200 that breaks off.
      const csv = await csvStream(page, provider.exportRows(ctx, query), {
        superAdmin: ctx.superAdmin && !ctx.tenantId,
        locale,
        requestId,
      });
      return new Response(csv, {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${page.key}-${stamp}.csv"`,
        },
      });
    }
    default:
      throw notFound("page action");
  }
});

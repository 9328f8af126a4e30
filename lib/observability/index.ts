import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { ReadStats } from "@/db/read-replica";
import type { TurnObserver } from "@/lib/turns/observer";
import { TollgateMetrics } from "./metrics";
import { TelemetryObserver } from "./observer";

export { tracedApi, tracedRoute } from "./http";
export { TollgateMetrics } from "./metrics";
export { TelemetryObserver } from "./observer";
export { flushTracing, startTracing, stopTracing } from "./tracing";

/** An answer of the /metrics endpoint, transport-neutral (the app's route and the lean server write it). */
export type MetricsAnswer = { status: number; headers: Record<string, string>; body: string };

/** The process's metrics, the observer that feeds them, and the /metrics endpoint (the container holds one). */
export type Telemetry = {
  readonly metrics: TollgateMetrics;
  /** The recorder, wrapped: metrics, the log line and spans where each ledger row closes. */
  observe(inner: TurnObserver): TurnObserver;
  /** /metrics for a request with this Authorization header. */
  scrape(authorization: string | null | undefined): Promise<MetricsAnswer>;
};

export function createTelemetry(options: {
  env: NodeJS.ProcessEnv;
  providerType?: (provider: string) => string | undefined;
  /** Node's default metrics (event-loop lag, heap, CPU); default on. */
  defaultMetrics?: boolean;
  /** The read replica's state (DATABASE_READ_URL), read when scraped. */
  reads?: () => ReadStats;
}): Telemetry {
  const metrics = new TollgateMetrics({ defaultMetrics: options.defaultMetrics, reads: options.reads });
  return {
    metrics,
    observe: (inner) => new TelemetryObserver(inner, { metrics, providerType: options.providerType }),
    async scrape(authorization) {
      const access = metricsAccess(options.env, authorization);
      if (access === "off")
        return text(404, "/metrics is off: set METRICS_TOKEN to scrape it in production.\n");
      if (access === "unauthorized")
        return {
          ...text(401, "Unauthorized: send Authorization: Bearer <METRICS_TOKEN>.\n"),
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "www-authenticate": 'Bearer realm="metrics"',
          },
        };
      const { contentType, body } = await metrics.scrape();
      return { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" }, body };
    },
  };
}

const text = (status: number, body: string): MetricsAnswer => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body,
});

/**
 * Who may read /metrics: with METRICS_TOKEN set, only a request with `Authorization: Bearer <token>` (compared in
 * constant time); without it, anyone in development, and no one in production (NODE_ENV=production), where
 * spend per tenant should not be readable by whoever reaches the port.
 */
export function metricsAccess(
  env: NodeJS.ProcessEnv,
  authorization: string | null | undefined,
): "ok" | "unauthorized" | "off" {
  const token = env.METRICS_TOKEN?.trim();
  if (!token) return env.NODE_ENV === "production" ? "off" : "ok";
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim() ?? "";
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return given && timingSafeEqual(digest(given), digest(token)) ? "ok" : "unauthorized";
}

/**
 * How much of the service's published quota (10 requests per second and 300 per minute) a multi-issuer
 * pull uses, with the sample server enforcing that quota with 429s. The baseline is the ideal client
 * for the same duration: one that sends a request the instant both rolling windows allow it. What counts
 * for ocf-sync is what the server accepted in the window (what its quota saw); pages completed in the
 * window are shown beside. The parsing code is warmed up first (records parsed once, without a request),
 * so that a cold start's compilation is not counted against the limiter. Goal: at least 98% of the ideal,
 * and no 429.
 */
import { createApiClient } from "../src/client/create-client.js";
import { recordItems } from "../src/pull/pull-issuer.js";
import { pullIssuers } from "../src/pull/pull-issuers.js";
import { startSampleServer } from "../src/sample-server/server.js";

const PER_SECOND = 10;
const PER_MINUTE = 300;

/** Requests an ideal client can send in `durationMs` from a cold start under both rolling windows. */
export function idealRequests(durationMs: number, perSecond = PER_SECOND, perMinute = PER_MINUTE): number {
  const grants: number[] = [];
  let t = 0;
  while (t < durationMs) {
    const n = grants.length;
    const bySecond = n >= perSecond ? (grants[n - perSecond] ?? 0) + 1000 : 0;
    const byMinute = n >= perMinute ? (grants[n - perMinute] ?? 0) + 60_000 : 0;
    t = Math.max(t, bySecond, byMinute);
    if (t >= durationMs) break;
    grants.push(t);
  }
  return grants.length;
}

export async function benchQuotaShare(): Promise<string> {
  const durationMs = Number(process.env.OCF_SYNC_BENCH_QUOTA_SECONDS ?? "75") * 1000;
  const server = await startSampleServer({ port: 0, quota: { perSecond: PER_SECOND, perMinute: PER_MINUTE } });
  for (const [issuerId, issuer] of server.data.issuers) {
    for (const raw of issuer.awards) void [...recordItems("restrictedStockAward", raw, issuerId, { onInvalid: "quarantine" })];
    for (const raw of issuer.units) void [...recordItems("restrictedStockUnit", raw, issuerId, { onInvalid: "quarantine" })];
  }
  const controller = new AbortController();
  const started = performance.now();
  const rejectedAt: number[] = [];
  const client = createApiClient({
    baseUrl: server.url, // the default limiter: 10/s and 300/min
    onEvent: (event) => {
      if (event.type === "request" && event.status === 429) rejectedAt.push((performance.now() - started) / 1000);
    },
  });
  let completedInWindow = 0;
  let acceptedInWindow = 0;
  let passes = 0;
  try {
    const timer = setTimeout(() => {
      const { requests, rateLimited } = server.stats();
      acceptedInWindow = requests - rateLimited;
      controller.abort();
    }, durationMs);
    try {
      while (!controller.signal.aborted) {
        for await (const result of pullIssuers(client, server.issuers, { concurrency: 4, onInvalid: "quarantine", signal: controller.signal, onEvent: (e) => {
          if (e.type === "page-fetched" && performance.now() - started <= durationMs) completedInWindow += 1;
        } })) {
          if (!result.ok && !controller.signal.aborted) throw result.error;
        }
        passes += 1;
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await client.close();
    await server.close();
  }
  const ideal = idealRequests(durationMs);
  const stats = server.stats();
  return [
    `${durationMs / 1000} s of repeated pulls of all ${server.issuers.length} sample issuers (concurrency 4), server enforcing ${PER_SECOND}/s and ${PER_MINUTE}/min`,
    "",
    "| what | requests | share of ideal |",
    "|---|---:|---:|",
    `| baseline: ideal client, both rolling windows full | ${ideal} | 100.0% |`,
    `| ocf-sync: requests the server accepted in the window (${passes} full passes) | ${acceptedInWindow} | **${((acceptedInWindow / ideal) * 100).toFixed(1)}%** |`,
    `| ocf-sync: pages completed in the window | ${completedInWindow} | ${((completedInWindow / ideal) * 100).toFixed(1)}% |`,
    "",
    `429 responses from the server: ${stats.rateLimited}${rejectedAt.length === 0 ? "" : ` (at ${rejectedAt.map((t) => `${t.toFixed(1)} s`).join(", ")})`}; client retries: ${client.stats().retries}`,
  ].join("\n");
}

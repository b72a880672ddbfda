/**
 * Pull throughput from the sample server for its largest issuer, against a baseline measured in the same
 * run: the same pages fetched with a bare undici `request` and `JSON.parse`, with no retry machinery, no
 * rate limiter and no record validation. The ratio is what ocf-sync's client and parsing cost.
 */
import { request } from "undici";
import { createApiClient } from "../src/client/create-client.js";
import { pullIssuer } from "../src/pull/pull-issuer.js";
import { startSampleServer } from "../src/sample-server/server.js";

const ROUNDS = 30;

async function bareFetchAll(baseUrl: string, issuerId: string): Promise<number> {
  let records = 0;
  for (const collection of ["restrictedStockAwards", "restrictedStockUnits"] as const) {
    let token: string | undefined;
    do {
      const url = new URL(`${baseUrl}/v1alpha1/issuers/${encodeURIComponent(issuerId)}/${collection}`);
      url.searchParams.set("pageSize", "50");
      if (token !== undefined) url.searchParams.set("pageToken", token);
      const response = await request(url);
      const body = (await response.body.json()) as Record<string, unknown>;
      records += ((body[collection] as unknown[] | undefined) ?? []).length;
      token = typeof body.nextPageToken === "string" && body.nextPageToken !== "" ? body.nextPageToken : undefined;
    } while (token !== undefined);
  }
  return records;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function benchPullThroughput(): Promise<string> {
  const server = await startSampleServer({ port: 0 });
  try {
    const sizes = [...server.data.issuers].map(([id, r]) => ({ id, n: r.awards.length + r.units.length }));
    const largest = sizes.sort((a, b) => b.n - a.n)[0];
    if (largest === undefined) throw new Error("no sample issuers");
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    // warm up both paths (JIT, connection pools)
    await bareFetchAll(server.url, largest.id);
    await pullIssuer(client, largest.id, { onInvalid: "quarantine" });
    const bare: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // interleave so that machine noise hits both alike
      let t = performance.now();
      const n = await bareFetchAll(server.url, largest.id);
      bare.push(n / ((performance.now() - t) / 1000));
      t = performance.now();
      const pulled = await pullIssuer(client, largest.id, { onInvalid: "quarantine" });
      const m = pulled.awards.length + pulled.units.length + pulled.quarantined.length;
      ours.push(m / ((performance.now() - t) / 1000));
    }
    await client.close();
    const b = median(bare);
    const o = median(ours);
    return [
      `largest sample issuer ${JSON.stringify(largest.id)}: ${largest.n} records, ${ROUNDS} interleaved rounds, medians`,
      "",
      "| what | records/s | ratio to baseline |",
      "|---|---:|---:|",
      `| baseline: bare undici GET + JSON.parse of the same pages | ${b.toFixed(0)} | 1.00 |`,
      `| ocf-sync pullIssuer (client, retries, limiter off, zod parsing) | ${o.toFixed(0)} | ${(o / b).toFixed(2)} |`,
    ].join("\n");
  } finally {
    await server.close();
  }
}

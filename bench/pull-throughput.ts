/**
 * Pull throughput from the sample server for its largest issuer, against a baseline measured in the same
 * run: the same pages fetched with a bare undici `request` and `JSON.parse`, with no retry machinery, no
 * rate limiter and no record validation. The ratio is what ocf-sync's client and parsing cost.
 *
 * Then the peak memory of `ocf-sync pull` (in a process of its own, `pull-child.ts`) on the generated
 * issuer at 2,000 and at 10,000 records: whether it stays flat as an issuer's records grow fivefold.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { createApiClient } from "../src/client/create-client.js";
import { pullIssuer } from "../src/pull/pull-issuer.js";
import { startSampleServer } from "../src/sample-server/server.js";
import { GENERATED_ISSUER_ID, generateIssuer } from "./generated-issuer.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");

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
      "",
      await benchPullMemory(),
    ].join("\n");
  } finally {
    await server.close();
  }
}

/** Peak RSS of `ocf-sync pull` of the generated issuer at 2,000 and 10,000 records (no quota, no client limit). */
async function benchPullMemory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-bench-pull-"));
  try {
    const rows: { records: number; seconds: number; maxRssMb: number; bytes: number }[] = [];
    for (const records of [2_000, 10_000]) {
      const server = await startSampleServer({ port: 0, quota: false, data: { issuers: new Map([[GENERATED_ISSUER_ID, generateIssuer(records)]]) } });
      try {
        const out = join(dir, `${records}.ndjson`);
        const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench/pull-child.ts"), server.url, GENERATED_ISSUER_ID, out], { cwd: ROOT, maxBuffer: 1 << 20 });
        const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { seconds: number; maxRssMb: number };
        rows.push({ records, ...result, bytes: (await stat(out)).size });
      } finally {
        await server.close();
      }
    }
    const [small, large] = rows;
    if (small === undefined || large === undefined) throw new Error("no pull measured");
    return [
      "`ocf-sync pull --out FILE` of the generated issuer (40 vesting events a record), each in its own process:",
      "",
      "| records | NDJSON | time | peak RSS |",
      "|---:|---:|---:|---:|",
      ...rows.map((r) => `| ${r.records.toLocaleString("en-US")} | ${(r.bytes / 1e6).toFixed(0)} MB | ${r.seconds.toFixed(1)} s | ${r.maxRssMb.toFixed(0)} MB |`),
      "",
      `Peak RSS, 10,000 records against 2,000: ${(large.maxRssMb / small.maxRssMb).toFixed(2)} (flat is 1.0).`,
    ].join("\n");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

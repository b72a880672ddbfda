/**
 * A no-change re-sync of the largest sample issuer against a full export of it, measured in the same
 * run: API requests made (the goal is one filtered page per record kind) and wall time, median of
 * five, with the sample server answering at once and with a simulated 100 ms of network latency per
 * request (a remote API). A re-sync still re-maps and rewrites the whole package (an OCF package cannot
 * be mapped back), and reads the old and new packages to compare their objects; what it saves is the
 * pull.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiClient } from "../src/client/create-client.js";
import { exportIssuer } from "../src/export/export-issuer.js";
import { startSampleServer, type SampleServer } from "../src/sample-server/server.js";
import { sync } from "../src/sync/sync.js";
import { LARGE_ISSUER_ID } from "../samples/generate-large-issuer.js";

const RUNS = 5;
const GENERATED_AT = "2025-07-01T00:00:00Z";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(server: SampleServer, task: () => Promise<void>): Promise<{ ms: number; requests: number }> {
  const before = server.stats().requests;
  const started = performance.now();
  await task();
  return { ms: performance.now() - started, requests: server.stats().requests - before };
}

async function measure(latencyMs: number): Promise<{ fullMs: number; fullRequests: number; syncMs: number; syncRequests: number; records: number }> {
  const server = await startSampleServer({ port: 0, latencyMs });
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-bench-sync-"));
  const client = createApiClient({ baseUrl: server.url, rateLimit: false });
  const stateFile = join(dir, "state.json");
  const syncOutDir = join(dir, "synced");
  const runSync = async (): Promise<number> => {
    let records = 0; // of the issuer after the pass
    for await (const event of sync(client, [LARGE_ISSUER_ID], { outDir: syncOutDir, stateFile, generatedAt: GENERATED_AT, fullEvery: 0 })) {
      if (event.type === "records-changed") records = event.records.created.length + event.records.modified.length + event.records.unchanged;
      if (event.type === "issuer-failed") throw event.error;
    }
    return records;
  };
  try {
    const records = await runSync(); // the first, full pass: what later passes start from
    const full: { ms: number; requests: number }[] = [];
    const resync: { ms: number; requests: number }[] = [];
    // Alternated, so that a slow patch of the machine weighs on both alike.
    for (let i = 0; i < RUNS; i++) {
      full.push(await timed(server, () => exportIssuer(client, LARGE_ISSUER_ID, { outDir: join(dir, "full"), generatedAt: GENERATED_AT }).then(() => undefined)));
      resync.push(await timed(server, () => runSync().then(() => undefined)));
    }
    return {
      fullMs: median(full.map((r) => r.ms)),
      fullRequests: median(full.map((r) => r.requests)),
      syncMs: median(resync.map((r) => r.ms)),
      syncRequests: median(resync.map((r) => r.requests)),
      records,
    };
  } finally {
    await client.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchSync(): Promise<string> {
  const rows: string[] = [];
  let records = 0;
  for (const latencyMs of [0, 100]) {
    const m = await measure(latencyMs);
    records = m.records;
    rows.push(
      `| ${latencyMs} ms | ${m.fullRequests} | ${m.fullMs.toFixed(0)} ms | ${m.syncRequests} | ${m.syncMs.toFixed(0)} ms | ${(m.syncMs / m.fullMs).toFixed(2)} |`,
    );
  }
  return [
    `sample issuer ${LARGE_ISSUER_ID} (${records} records, 2 record kinds, 50 per page); no-change re-sync after a first full sync; median of ${RUNS}`,
    "",
    "| latency per request | full export requests | full export time | re-sync requests | re-sync time | re-sync / full |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

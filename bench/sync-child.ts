/**
 * One operation of the sync benchmark in its own process, so that its time, CPU and peak memory are
 * its own: a full export, a sync, or a bare pull of every record. Times the operation itself (not the
 * process start, nor one warm-up request). Prints one JSON line.
 *
 *   node --import tsx bench/sync-child.ts export|sync|pull URL ISSUER OUT_DIR STATE_FILE
 */
import { createApiClient } from "../src/client/create-client.js";
import { listRecordsPage } from "../src/client/endpoints.js";
import { exportIssuer } from "../src/export/export-issuer.js";
import { streamIssuerRecords } from "../src/pull/pull-issuer.js";
import { sync } from "../src/sync/sync.js";

const [operation = "", url = "", issuerId = "", outDir = "", stateFile = ""] = process.argv.slice(2);
const GENERATED_AT = "2025-07-01T00:00:00Z";
const client = createApiClient({ baseUrl: url, rateLimit: false });
// One request first, for every operation alike: it loads the HTTP stack's lazy parts (its parser is
// WebAssembly), which the benchmark's TypeScript loader makes cost hundreds of milliseconds.
await listRecordsPage(client, "restrictedStockAward", "warm-up", { pageSize: 1 }).catch(() => undefined);
const warmUpRequests = client.stats().requests;
const result: Record<string, unknown> = { operation };
const cpu = process.cpuUsage();
const started = performance.now();
if (operation === "export") {
  const written = await exportIssuer(client, issuerId, { outDir, generatedAt: GENERATED_AT });
  result.records = written.awards + written.units;
} else if (operation === "pull") {
  let records = 0;
  for await (const item of streamIssuerRecords(client, issuerId, { onInvalid: "quarantine" })) if (item.type !== "warning") records += 1;
  result.records = records;
} else if (operation === "sync") {
  for await (const event of sync(client, [issuerId], { outDir, stateFile, generatedAt: GENERATED_AT, fullEvery: 0 })) {
    if (event.type === "issuer-failed") throw event.error;
    if (event.type === "records-changed") Object.assign(result, { pass: event.pass, pulled: event.pulled, pages: event.pages, reread: event.reread, unchangedPages: event.unchangedPages, modified: event.records.modified, records: event.records.created + event.records.modified + event.records.unchanged });
    if (event.type === "package-written") Object.assign(result, { package: "written", changed: event.changes.changed, unchanged: event.changes.unchanged });
    if (event.type === "package-unchanged") Object.assign(result, { package: "unchanged" });
  }
} else {
  throw new Error(`unknown operation ${operation}`);
}
const seconds = (performance.now() - started) / 1000;
const { user, system } = process.cpuUsage(cpu);
result.seconds = seconds;
result.cpuSeconds = (user + system) / 1e6;
result.requests = client.stats().requests - warmUpRequests;
result.maxRssMb = process.resourceUsage().maxRSS / 1024;
await client.close();
process.stdout.write(`${JSON.stringify(result)}\n`);

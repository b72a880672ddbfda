/**
 * A record listed twice across pages (the service changed while it was paged): `export` and `sync`
 * keep its most recently modified copy, as `pull` does, and say so with the same `DUPLICATE_RECORD`
 * warning: in the export's report, and in the sync's events (and the report of the package it writes).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../../src/client/create-client.js";
import { exportIssuer } from "../../../src/export/export-issuer.js";
import { pullIssuer } from "../../../src/pull/pull-issuer.js";
import { loadSampleData } from "../../../src/sample-server/data.js";
import { sync, type SyncEvent } from "../../../src/sync/sync.js";
import { startLoopbackServer, type LoopbackServer } from "../../helpers/loopback-server.js";

const ISSUER = "7";
const GENERATED_AT = "2025-07-01T00:00:00Z";

let server: LoopbackServer;
let dir: string;
let awardId: string;
let unitId: string;
/** The sample issuer's lists, each record once. */
let once: Record<string, object[]>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-listed-twice-"));
  const issuer = (await loadSampleData()).issuers.get(ISSUER);
  const [a, ...otherAwards] = issuer?.awards ?? [];
  const [u, ...otherUnits] = issuer?.units ?? [];
  if (a === undefined || u === undefined) throw new Error("sample issuer 7 has too few records");
  awardId = (a as { id: string }).id;
  unitId = (u as { id: string }).id;
  once = { restrictedStockAwards: [a, ...otherAwards], restrictedStockUnits: [u, ...otherUnits] };
  const modified = (record: object, value: string, label: string): object => ({ ...record, lastModifiedDatetime: { value }, securityLabel: label });
  // Each list on two pages; the award's newer copy comes on the second page, the unit's older one.
  const pages: Record<string, [object[], object[]]> = {
    restrictedStockAwards: [[modified(a, "2025-01-01T00:00:00Z", "OLD"), ...otherAwards], [modified(a, "2025-02-01T00:00:00Z", "NEW")]],
    restrictedStockUnits: [[modified(u, "2025-03-01T00:00:00Z", "NEWER"), ...otherUnits], [modified(u, "2025-01-01T00:00:00Z", "OLDER")]],
  };
  server = await startLoopbackServer((request, res) => {
    const list = request.url.includes("restrictedStockAwards") ? "restrictedStockAwards" : "restrictedStockUnits";
    const second = request.url.includes("pageToken=");
    const [first, last] = pages[list] as [object[], object[]];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(second ? { [list]: last } : { [list]: first, nextPageToken: "page-2" }));
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The DUPLICATE_RECORD warnings among `warnings`, as [kind, recordId, message]. */
function duplicates(warnings: readonly { code: string; message: string; kind?: string; recordId?: string }[]): [string | undefined, string | undefined, string][] {
  return warnings.filter((w) => w.code === "DUPLICATE_RECORD").map((w) => [w.kind, w.recordId, w.message]);
}

describe("a record listed twice across pages", () => {
  it("pull, export and sync give the same DUPLICATE_RECORD warnings, and keep the newest copy", async () => {
    const api = createApiClient({ baseUrl: server.url, rateLimit: false });
    try {
      const pulled = duplicates((await pullIssuer(api, ISSUER)).warnings);
      expect(pulled.map(([kind, id]) => [kind, id]).sort()).toEqual([
        ["restrictedStockAward", awardId],
        ["restrictedStockUnit", unitId],
      ]);

      const exported = await exportIssuer(api, ISSUER, { outDir: join(dir, "export"), generatedAt: GENERATED_AT, asOf: "2025-06-30" });
      expect(duplicates(exported.warnings).sort()).toEqual([...pulled].sort());
      const report = JSON.parse(await readFile(exported.report, "utf8")) as { warnings: { code: string; message: string }[] };
      expect(duplicates(report.warnings).sort()).toEqual([...pulled].sort());
      const transactions = await readFile(join(exported.folder, "Transactions.ocf.json"), "utf8");
      expect(transactions).toMatch(/"custom_id": ?"NEW"/);
      expect(transactions).toMatch(/"custom_id": ?"NEWER"/);
      expect(transactions).not.toMatch(/"custom_id": ?"OLD"/);
      expect(transactions).not.toMatch(/"custom_id": ?"OLDER"/);

      const events: SyncEvent[] = [];
      for await (const event of sync(api, [ISSUER], { outDir: join(dir, "sync"), stateFile: join(dir, "sync-state.json"), generatedAt: GENERATED_AT, asOf: "2025-06-30" })) events.push(event);
      const changed = events.find((e) => e.type === "records-changed");
      expect(changed?.type === "records-changed" && duplicates(changed.warnings).sort()).toEqual([...pulled].sort());
      const written = events.find((e) => e.type === "package-written");
      expect(written?.type === "package-written" && duplicates(written.warnings).sort()).toEqual([...pulled].sort());
      // The package the sync wrote is the export's.
      expect(await readFile(join(dir, "sync", "7", "Transactions.ocf.json"), "utf8")).toBe(transactions);
    } finally {
      await api.close();
    }
  });

  it("export warns nothing when every record is listed once", async () => {
    const single = await startLoopbackServer((request, res) => {
      const list = request.url.includes("restrictedStockAwards") ? "restrictedStockAwards" : "restrictedStockUnits";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ [list]: once[list] }));
    });
    const api = createApiClient({ baseUrl: single.url, rateLimit: false });
    try {
      const exported = await exportIssuer(api, ISSUER, { outDir: join(dir, "once"), generatedAt: GENERATED_AT, asOf: "2025-06-30" });
      expect(exported.awards + exported.units).toBe((once.restrictedStockAwards?.length ?? 0) + (once.restrictedStockUnits?.length ?? 0));
      expect(duplicates(exported.warnings)).toEqual([]);
    } finally {
      await api.close();
      await single.close();
    }
  });
});

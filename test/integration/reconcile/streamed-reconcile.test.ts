/**
 * What `ocf-sync reconcile` runs (`reconcileNdjsonWithOcf`, `reconcileApiWithOcf`: each record
 * reconciled as it is read, only its summary kept) gives the report that reconciling the records held
 * in memory gives (`reconcileSourceWithOcf` of `loadSourceFromNdjson` / `loadSourceFromApi`): on every
 * sample issuer, its golden package and doctored ones, at several dates, with records listed twice,
 * quarantined lines and other issuers in the same file; from real files and a real loopback server.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient, type ApiClient } from "../../../src/client/create-client.js";
import { recordLine } from "../../../src/pull/ndjson.js";
import { loadSourceFromApi, loadSourceFromNdjson, reconcileApiWithOcf, reconcileNdjsonWithOcf } from "../../../src/reconcile/load.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import type { ReconcileOptions } from "../../../src/reconcile/types.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { SAMPLES, SAMPLE_PACKAGES, samplePackage, txById, type TxJson } from "../../unit/reconcile/helpers.js";

const ISSUERS = Object.keys(SAMPLE_PACKAGES);
const OPTIONS: readonly ReconcileOptions[] = [{}, { asOf: "2024-01-01" }, { asOf: "2030-12-31", tolerance: "0.5" }, { reader: "same-security" }];

/** A package with its first issuance's quantity changed, and a transaction left out: differences to find. */
const doctor = (transactions: TxJson[]): TxJson[] => {
  const issuance = transactions.find((t) => String(t.object_type).endsWith("_ISSUANCE"));
  if (issuance === undefined) return transactions;
  const changed = { ...txById(transactions, String(issuance.id)), quantity: "1234567.5" };
  return transactions.filter((t) => t !== transactions.at(-1)).map((t) => (t === issuance ? changed : t));
};

describe("reconciling records as they are read", () => {
  let dir: string;
  let ndjson: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-streamed-reconcile-"));
    const lines: string[] = [];
    for (const issuerId of ISSUERS) {
      const data = JSON.parse(await readFile(join(SAMPLES, "api", `${encodeURIComponent(issuerId)}.json`), "utf8")) as Record<string, Record<string, unknown>[] | undefined>;
      for (const [kind, list] of [
        ["restrictedStockAward", data.restrictedStockAwards ?? []],
        ["restrictedStockUnit", data.restrictedStockUnits ?? []],
      ] as const) {
        list.forEach((raw, i) => {
          lines.push(recordLine(kind, issuerId, String(raw.id), raw));
          // Every third record again: an older copy (dropped) and, for every sixth, a newer one (kept, in the first copy's place).
          if (i % 3 === 0) lines.push(recordLine(kind, issuerId, String(raw.id), { ...raw, quantity: { value: "1" }, lastModifiedDatetime: { value: "2000-01-01T00:00:00Z" } }));
          if (i % 6 === 0) lines.push(recordLine(kind, issuerId, String(raw.id), { ...raw, quantity: { value: "999" }, lastModifiedDatetime: { value: "2099-01-01T00:00:00Z" } }));
        });
      }
      lines.push(`${JSON.stringify({ kind: "restrictedStockUnit", issuerId, id: "Q", quarantined: true, issues: [{ message: "bad date" }], record: { id: "Q" } })}\n`);
      lines.push(recordLine("restrictedStockAward", issuerId, "B", { id: "B", quantity: { value: "ten" } }));
    }
    ndjson = join(dir, "pulled.ndjson");
    await writeFile(ndjson, lines.join(""));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each(ISSUERS)("from a pull's NDJSON, issuer %s: the report of the records in memory", async (issuerId) => {
    let reports = 0;
    for (const pkg of [await samplePackage(issuerId), await samplePackage(issuerId, doctor)]) {
      for (const options of OPTIONS) {
        const held = reconcileSourceWithOcf(await loadSourceFromNdjson(ndjson, pkg, { issuerId }), pkg, options);
        const streamed = await reconcileNdjsonWithOcf(ndjson, pkg, { ...options, issuerId });
        expect(streamed).toEqual(held);
        reports += held.differences.length > 0 ? 1 : 0;
      }
    }
    // The doctored package differs (and the file's extra copies and bad lines are differences too).
    expect(reports).toBeGreaterThan(0);
  });

  it("chooses the issuer as loadSourceFromNdjson does, and refuses as it does", async () => {
    const pkg = await samplePackage("7");
    expect(await reconcileNdjsonWithOcf(ndjson, pkg)).toEqual(reconcileSourceWithOcf(await loadSourceFromNdjson(ndjson, pkg), pkg));
    const held = await loadSourceFromNdjson(ndjson, pkg, { issuerId: "nobody" }).catch((e: unknown) => e);
    const streamed = await reconcileNdjsonWithOcf(ndjson, pkg, { issuerId: "nobody" }).catch((e: unknown) => e);
    expect(streamed).toEqual(held);
    expect(String(streamed)).toContain('has no records of issuer "nobody"');
    await expect(reconcileNdjsonWithOcf(ndjson, pkg, { tolerance: "-1" })).rejects.toMatchObject({ code: "RECONCILE_INPUT_UNUSABLE" });
  });

  describe("from the API", () => {
    let server: SampleServer;
    let client: ApiClient;
    beforeAll(async () => {
      server = await startSampleServer({ port: 0 });
      client = createApiClient({ baseUrl: server.url, rateLimit: false });
    });
    afterAll(async () => {
      await client.close();
      await server.close();
    });

    it.each(ISSUERS)("issuer %s: the report of the records pulled into memory", async (issuerId) => {
      for (const pkg of [await samplePackage(issuerId), await samplePackage(issuerId, doctor)]) {
        for (const options of OPTIONS) {
          const held = reconcileSourceWithOcf(await loadSourceFromApi(client, issuerId), pkg, options);
          expect(await reconcileApiWithOcf(client, issuerId, pkg, options)).toEqual(held);
        }
      }
    });
  });
});

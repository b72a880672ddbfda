/**
 * Packages of any size: with a small file bound, the largest sample issuer is exported over real HTTP
 * into several files per list, in the documented order running on across files; the folder and the
 * zip validate (read object by object), and the objects, read back, are exactly the golden package's.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOLDEN_DIR, GOLDEN_GENERATED_AT, GOLDEN_OPTIONS } from "../../../samples/generate-golden.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { exportIssuer, type IssuerExport } from "../../../src/export/export-issuer.js";
import { loadOcfPackage } from "../../../src/ocf/package-reader.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";

const ISSUER = "144361";
const BOUND = 64 * 1024;

describe("a package split over several files", () => {
  let server: SampleServer;
  let out: string;
  let exported: IssuerExport;
  beforeAll(async () => {
    server = await startSampleServer({ port: 0 });
    out = await mkdtemp(join(tmpdir(), "ocf-sync-split-"));
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    exported = await exportIssuer(client, ISSUER, {
      outDir: out,
      zip: true,
      generatedAt: GOLDEN_GENERATED_AT,
      ...(GOLDEN_OPTIONS.asOf === undefined ? {} : { asOf: GOLDEN_OPTIONS.asOf }),
      maxFileBytes: BOUND,
    });
    await client.close();
  });
  afterAll(async () => {
    await server.close();
    await rm(out, { recursive: true, force: true });
  });

  it("names the files of a list in order, each within the bound, and the manifest lists them in that order", async () => {
    const names = (await readdir(join(out, ISSUER))).sort();
    const transactions = names.filter((n) => n.startsWith("Transactions"));
    expect(transactions.length).toBeGreaterThan(3);
    expect(exported.validated).toBe(true);
    const manifest = JSON.parse(await readFile(join(out, ISSUER, "Manifest.ocf.json"), "utf8")) as { transactions_files: { filepath: string }[] };
    expect(manifest.transactions_files.map((f) => f.filepath)).toEqual(transactions.map((_, i) => (i === 0 ? "Transactions.ocf.json" : `Transactions.${i + 1}.ocf.json`)));
    for (const name of names.filter((n) => n.endsWith(".ocf.json"))) {
      expect((await readFile(join(out, ISSUER, name))).length, name).toBeLessThanOrEqual(BOUND);
    }
  });

  it("holds exactly the golden package's objects, in the same order across its files", async () => {
    const golden = await loadOcfPackage(join(GOLDEN_DIR, ISSUER));
    for (const pkg of [await loadOcfPackage(join(out, ISSUER)), await loadOcfPackage(join(out, `${ISSUER}.ocf.zip`))]) {
      for (const key of ["transactions_files", "stakeholders_files", "vesting_terms_files", "stock_classes_files", "stock_plans_files"]) {
        expect(itemsOf(pkg, key), key).toEqual(itemsOf(golden, key));
      }
    }
  });

  it("validates, folder and zip, reading each file object by object", async () => {
    for (const path of [join(out, ISSUER), join(out, `${ISSUER}.ocf.zip`)]) {
      const report = await validatePackageAt(path);
      expect(report.lineage).toEqual({ reading: "documents", from: "declared" });
      expect(report.problems, path).toEqual([]);
      expect(report.counts.transactions).toBe(exported.transactions);
      expect(report.counts.files).toBe(exported.files.length);
    }
  });
});

/** The objects of every file a manifest list names, in order. */
function itemsOf(pkg: Awaited<ReturnType<typeof loadOcfPackage>>, key: string): unknown[] {
  const list = pkg.manifest[key] as { filepath: string }[];
  return list.flatMap(({ filepath }) => {
    const content = pkg.files.get(filepath);
    if (content?.state !== "read") throw new Error(`${filepath} not read`);
    return (JSON.parse(new TextDecoder().decode(content.bytes)) as { items: unknown[] }).items;
  });
}

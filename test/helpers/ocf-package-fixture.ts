/**
 * A small, coherent OCF 1.2.0 package for the validate tests, built here (not by the writer under
 * test elsewhere) so that a test can corrupt one thing at a time: an object before the files are
 * serialized, or the bytes after the manifest's MD5s are computed.
 *
 * Content: two stakeholders, one stock class, one plan, two vesting terms, and
 * - RSA `rsa-77` (20,000 shares): acceptance, vesting start, repurchase of 15,000 returned to the pool,
 *   the other 5,000 on the balance security `rsa-77-b` (the last transaction in the file);
 * - RSU `rsu-8550` (1,500 units): vesting start, a milestone event, a release of 375 with the stock
 *   issuance of the delivered shares, and a cancellation of the other 1,125 returned to the pool.
 * It reads the same under both lineage readings (a repurchase names its balance; a release keeps
 * the rest on its security), and its transactions are not in date order, as other systems' may not be.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll } from "vitest";
import { readOcfPackageFromFiles, type LoadedOcfPackage } from "../../src/ocf/package-reader.js";
import { example, exampleManifest, exampleWithout } from "./ocf-examples.js";

type Json = Record<string, unknown>;

export interface FixtureFile {
  path: string;
  /** The manifest list that names it. */
  key: string;
  fileType: string;
  items: Json[];
}

export interface PackageFixture {
  /** The manifest without its file lists (filled in by `fixtureBytes`). */
  manifest: Json;
  files: FixtureFile[];
}

const usd = (amount: string) => ({ amount, currency: "USD" });

/** A fresh copy of the valid package; mutate it freely. */
export function validFixture(): PackageFixture {
  const milestoneTerms = {
    object_type: "VESTING_TERMS",
    id: "milestone-terms",
    name: "On milestone",
    description: "Everything vests when the milestone is reached",
    allocation_type: "CUMULATIVE_ROUNDING",
    vesting_conditions: [
      { id: "start", quantity: "0", trigger: { type: "VESTING_START_DATE" }, next_condition_ids: ["milestone"] },
      { id: "milestone", portion: { numerator: "1", denominator: "1" }, trigger: { type: "VESTING_EVENT" }, next_condition_ids: [] },
    ],
  };
  return {
    manifest: exampleManifest(),
    files: [
      {
        path: "Stakeholders.ocf.json",
        key: "stakeholders_files",
        fileType: "OCF_STAKEHOLDERS_FILE",
        items: [example("STAKEHOLDER"), example("STAKEHOLDER", { id: "sh-7001", name: { legal_name: "Sam Example" } })],
      },
      { path: "StockClasses.ocf.json", key: "stock_classes_files", fileType: "OCF_STOCK_CLASSES_FILE", items: [example("STOCK_CLASS")] },
      { path: "StockPlans.ocf.json", key: "stock_plans_files", fileType: "OCF_STOCK_PLANS_FILE", items: [example("STOCK_PLAN")] },
      {
        path: "VestingTerms.ocf.json",
        key: "vesting_terms_files",
        fileType: "OCF_VESTING_TERMS_FILE",
        items: [example("VESTING_TERMS"), milestoneTerms],
      },
      {
        path: "Transactions.ocf.json",
        key: "transactions_files",
        fileType: "OCF_TRANSACTIONS_FILE",
        items: [
          example("TX_STOCK_ISSUANCE", { vesting_terms_id: "4yr-1yr-cliff" }), // 0
          example("TX_STOCK_ACCEPTANCE"), // 1
          example("TX_VESTING_START"), // 2
          example("TX_STOCK_REPURCHASE", { balance_security_id: "rsa-77-b" }), // 3
          example("TX_STOCK_PLAN_RETURN_TO_POOL", { id: "rsa-77-return", security_id: "rsa-77", quantity: "15000" }), // 4
          example("TX_EQUITY_COMPENSATION_ISSUANCE", {
            stakeholder_id: "sh-7001",
            stock_plan_id: "plan-2015",
            stock_class_id: "class-common",
            vesting_terms_id: "milestone-terms",
          }), // 5
          example("TX_VESTING_START", { id: "rsu-8550-vesting-start", security_id: "rsu-8550" }), // 6
          example("TX_VESTING_EVENT", { security_id: "rsu-8550", id: "rsu-8550-milestone" }), // 7
          example("TX_EQUITY_COMPENSATION_RELEASE"), // 8
          {
            object_type: "TX_STOCK_ISSUANCE",
            id: "rsu-8550-shares-1-issuance",
            security_id: "rsu-8550-shares-1",
            date: "2016-06-01",
            custom_id: "CS-17",
            stakeholder_id: "sh-7001",
            security_law_exemptions: [],
            stock_class_id: "class-common",
            share_price: usd("4.10"),
            quantity: "300",
            stock_legend_ids: [],
          }, // 9
          example("TX_EQUITY_COMPENSATION_CANCELLATION"), // 10
          example("TX_STOCK_PLAN_RETURN_TO_POOL"), // 11
          {
            ...exampleWithout("TX_STOCK_ISSUANCE", "vestings"),
            id: "rsa-77-balance-issuance",
            security_id: "rsa-77-b",
            date: "2016-09-01",
            custom_id: "CS-16-B",
            quantity: "5000",
            comments: ["Balance of rsa-77 after the repurchase of 15000 unvested shares: vested, so no vestings."],
          }, // 12
        ],
      },
    ],
  };
}

/** The object with `id` (the first one), to change in place. */
export function itemOf(fixture: PackageFixture, id: string): Json {
  for (const file of fixture.files) {
    const found = file.items.find((item) => item.id === id);
    if (found !== undefined) return found;
  }
  throw new Error(`no item ${id} in the fixture`);
}

/** Where the object with `id` is: its file and the JSON path of a field (or of the object). */
export function locate(fixture: PackageFixture, id: string, field?: string): { file: string; itemId: string; jsonPath: string } {
  for (const file of fixture.files) {
    const index = file.items.findIndex((item) => item.id === id);
    if (index >= 0) return { file: file.path, itemId: id, jsonPath: `$.items[${index}]${field === undefined ? "" : `.${field}`}` };
  }
  throw new Error(`no item ${id} in the fixture`);
}

export function md5(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/** Every file's bytes, the manifest (with real MD5s) included, by path. Change the map to corrupt bytes. */
export function fixtureBytes(fixture: PackageFixture): Map<string, Uint8Array> {
  const bytes = new Map<string, Uint8Array>();
  const manifest: Json = { ...fixture.manifest };
  for (const file of fixture.files) {
    const content = encode({ file_type: file.fileType, items: file.items });
    bytes.set(file.path, content);
    const list = Array.isArray(manifest[file.key]) ? (manifest[file.key] as unknown[]) : [];
    manifest[file.key] = [...list, { filepath: file.path, md5: md5(content) }];
  }
  return new Map([["Manifest.ocf.json", encode(manifest)], ...bytes]);
}

/** Writes the files into `dir` (created). */
export async function writePackageFolder(dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [path, content] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** A flat zip of the files, as bytes. */
export function zipBytes(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  return zipSync(Object.fromEntries(files));
}

/** Writes a flat `.ocf.zip` of the files to `path`. */
export async function writePackageZip(path: string, files: ReadonlyMap<string, Uint8Array>): Promise<string> {
  await writeFile(path, zipBytes(files));
  return path;
}

/** The files with the manifest changed by `change` (a parsed copy), and written back. */
export function withManifest(files: ReadonlyMap<string, Uint8Array>, change: (manifest: Json) => void): Map<string, Uint8Array> {
  const manifest = JSON.parse(new TextDecoder().decode(files.get("Manifest.ocf.json"))) as Json;
  change(manifest);
  return new Map([...files, ["Manifest.ocf.json", encode(manifest)]]);
}

/** The files with every MD5 in the manifest recomputed from the files' current bytes. */
export function resealed(files: ReadonlyMap<string, Uint8Array>): Map<string, Uint8Array> {
  return withManifest(files, (manifest) => {
    for (const list of Object.values(manifest)) {
      if (!Array.isArray(list)) continue;
      for (const entry of list as { filepath?: string; md5?: string }[]) {
        const content = entry.filepath === undefined ? undefined : files.get(entry.filepath);
        if (content !== undefined) entry.md5 = md5(content);
      }
    }
  });
}

/** The package of `files`, read from memory. */
export function loadFiles(files: ReadonlyMap<string, Uint8Array>): Promise<LoadedOcfPackage> {
  return readOcfPackageFromFiles([...files].map(([path, content]) => ({ path, content })));
}

/**
 * A temporary directory for the tests of one file, created before them and removed after them;
 * `fresh()` gives a new path inside it for each case.
 */
export function temporaryDirectory(prefix: string): { path: () => string; fresh: (suffix?: string) => string } {
  let dir: string | undefined;
  let cases = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const path = (): string => {
    if (dir === undefined) throw new Error("the temporary directory exists only while the tests run");
    return dir;
  };
  return { path, fresh: (suffix = "") => join(path(), `case-${++cases}${suffix}`) };
}

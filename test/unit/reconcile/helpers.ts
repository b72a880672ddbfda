/** Sample source records and golden packages, read for reconciliation tests (doctored in memory when asked). */
import { readFile, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { packageObjects, type PackageObjects } from "../../../src/reconcile/package-objects.js";
import type { SourceIssuer } from "../../../src/reconcile/types.js";
import { parseRecord } from "../../../src/source/parse.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";

export const SAMPLES = resolve(import.meta.dirname, "../../../samples");

/** Golden package folder of each sample issuer. */
export const SAMPLE_PACKAGES: Readonly<Record<string, string>> = {
  "7": "7",
  "acme-robotics": "acme-robotics",
  "north wind/eu": "north-wind-eu.85249f7815",
  "144361": "144361",
  "zeta%labs": "zeta-labs.7b813727ae",
};

/** The parsed records of a sample issuer, as the API serves them. */
export async function sampleSource(issuerId: string): Promise<SourceIssuer> {
  const data = JSON.parse(await readFile(join(SAMPLES, "api", `${encodeURIComponent(issuerId)}.json`), "utf8")) as {
    restrictedStockAwards?: unknown[];
    restrictedStockUnits?: unknown[];
  };
  const awards = (data.restrictedStockAwards ?? []).map((raw) => parseRecord("restrictedStockAward", raw, { issuerId }).parsed.record as RestrictedStockAward);
  const units = (data.restrictedStockUnits ?? []).map((raw) => parseRecord("restrictedStockUnit", raw, { issuerId }).parsed.record as RestrictedStockUnit);
  return { issuerId, awards, units };
}

/** A transaction of a package, as JSON. */
export type TxJson = Record<string, unknown>;

/** The golden package of a sample issuer, its transactions passed through `doctor` first. */
export async function samplePackage(issuerId: string, doctor: (transactions: TxJson[]) => TxJson[] = (t) => t): Promise<PackageObjects> {
  const dir = join(SAMPLES, "ocf", SAMPLE_PACKAGES[issuerId] ?? issuerId);
  const files = await Promise.all(
    (await readdir(dir)).map(async (name) => {
      let content = await readFile(join(dir, name), "utf8");
      if (name === "Transactions.ocf.json") {
        const file = JSON.parse(content) as { items: TxJson[] };
        content = JSON.stringify({ ...file, items: doctor(file.items) });
      }
      return { path: name, content };
    }),
  );
  return packageObjects(await readOcfPackageFromFiles(files, { label: `samples/ocf/${issuerId}` }));
}

/** The transaction with `id`; fails the test when there is none. */
export function txById(transactions: readonly TxJson[], id: string): TxJson {
  const found = transactions.find((t) => t.id === id);
  if (found === undefined) throw new Error(`no transaction ${id}`);
  return found;
}

/**
 * Generates the golden OCF packages in `samples/ocf/<issuer>/`: the OCF 1.2.0 output of every sample
 * issuer of `samples/api/`, one complete package (a `Manifest.ocf.json` and its files) per issuer,
 * which `test/golden/` compares byte for byte.
 *
 *     npx tsx samples/generate-golden.ts            # rewrites samples/ocf/
 *     npx tsx samples/generate-golden.ts --check    # exits 1 when samples/ocf/ differs from a fresh build
 *
 * The folder of an issuer is its id percent-encoded, as the sample API files are named, so that an
 * id such as "north wind/eu" never names another folder. The packages are built with fixed options
 * (`GOLDEN_OPTIONS`, `GOLDEN_GENERATED_AT`), so they depend on nothing but the sample records and the
 * mapping code.
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { mapIssuer } from "../src/mapping/map-issuer.js";
import type { MapIssuerOptions, MappedIssuer } from "../src/mapping/types.js";
import { buildPackageFiles, type OcfPackageFiles } from "../src/ocf/package-files.js";
import { packageNameFor } from "../src/ocf/package-folder.js";
import { loadSampleData } from "../src/sample-server/data.js";
import { parseAward, parseUnit } from "../src/source/parse.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../src/source/records.js";
import { SAMPLES_AS_OF } from "./generate-large-issuer.js";

/** Where the golden packages live. */
export const GOLDEN_DIR = fileURLToPath(new URL("./ocf/", import.meta.url));

/** The manifest's `generated_at` in every golden package. */
export const GOLDEN_GENERATED_AT = `${SAMPLES_AS_OF}T00:00:00Z`;

/** The mapping options of every golden package: the defaults, with `as_of` the day the sample data describes. */
export const GOLDEN_OPTIONS: MapIssuerOptions = { asOf: SAMPLES_AS_OF, onInvalid: "fail" };

/** One sample issuer's records, mapping and package. */
export interface GoldenIssuer {
  issuerId: string;
  /** The package folder's name (the id percent-encoded). */
  folder: string;
  awards: RestrictedStockAward[];
  units: RestrictedStockUnit[];
  mapped: MappedIssuer;
  pkg: OcfPackageFiles;
}

/** The folder of an issuer's package: the same safe name `ocf-sync export` gives it. */
export function goldenFolderOf(issuerId: string): string {
  return packageNameFor(issuerId); // the same folder name `ocf-sync export` uses
}

/** Parses, maps and packages every sample issuer (sorted by id). Every sample record must parse. */
export async function buildGoldenIssuers(options: { signal?: AbortSignal } = {}): Promise<GoldenIssuer[]> {
  const data = await loadSampleData(undefined, options);
  return [...data.issuers]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([issuerId, raw]) => {
      const awards = raw.awards.map((record) => parseAward(record, { issuerId }).record);
      const units = raw.units.map((record) => parseUnit(record, { issuerId }).record);
      const mapped = mapIssuer({ issuerId, awards, units }, GOLDEN_OPTIONS);
      const pkg = buildPackageFiles(mapped, { generatedAt: GOLDEN_GENERATED_AT });
      return { issuerId, folder: goldenFolderOf(issuerId), awards, units, mapped, pkg };
    });
}

/** Writes every package afresh (a folder's stale files are removed). */
async function writeGolden(issuers: readonly GoldenIssuer[]): Promise<void> {
  await rm(GOLDEN_DIR, { recursive: true, force: true });
  for (const { folder, pkg } of issuers) {
    const dir = path.join(GOLDEN_DIR, folder);
    await mkdir(dir, { recursive: true });
    for (const file of pkg.files) await writeFile(path.join(dir, file.path), file.content, "utf8");
  }
}

/** The differences between a fresh build and the files on disk, as lines (empty when identical). */
export async function diffGolden(issuers: readonly GoldenIssuer[]): Promise<string[]> {
  const problems: string[] = [];
  const onDisk = new Set(await readdir(GOLDEN_DIR).catch(() => []));
  for (const { folder, pkg } of issuers) {
    onDisk.delete(folder);
    const dir = path.join(GOLDEN_DIR, folder);
    const files = new Set(await readdir(dir).catch(() => []));
    for (const file of pkg.files) {
      files.delete(file.path);
      const text = await readFile(path.join(dir, file.path), "utf8").catch(() => undefined);
      if (text === undefined) problems.push(`${folder}/${file.path}: missing`);
      else if (text !== file.content) problems.push(`${folder}/${file.path}: differs`);
    }
    for (const stray of files) problems.push(`${folder}/${stray}: not produced by the mapping`);
  }
  for (const stray of onDisk) problems.push(`${stray}: no sample issuer has this folder`);
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const issuers = await buildGoldenIssuers();
  if (process.argv.includes("--check")) {
    const problems = await diffGolden(issuers);
    for (const line of problems) process.stderr.write(`${line}\n`);
    process.stdout.write(`${problems.length === 0 ? "golden packages match" : `${problems.length} difference(s)`} (TZ=${process.env.TZ ?? "unset"})\n`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } else {
    await writeGolden(issuers);
    process.stdout.write(`wrote ${issuers.length} packages to ${GOLDEN_DIR}\n`);
  }
}

/**
 * Mapping throughput for the largest sample issuer, against a baseline measured in the same run:
 * `JSON.parse` of the same input text plus `JSON.stringify` (same two-space form) of the same output
 * objects (the manifest and each `{ file_type, items }` file of the package), i.e. the cost of merely
 * reading the records and writing the package. The goal (issue 3) is mapping within 3x of it: a ratio
 * of at least 0.33. What is timed for the mapping is everything a package costs once the records are
 * parsed: `mapIssuer` (including the zod check of every emitted object) and `buildPackageFiles` (the
 * JSON text and MD5 of every file). MB/s counts the input JSON.
 *
 * Each round times the three paths one after the other, so that machine noise hits them alike; the
 * figures are medians over the rounds, and the per-round ratios' quartiles show how noisy the run was.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { mapIssuer } from "../src/mapping/map-issuer.js";
import { buildPackageFiles } from "../src/ocf/package-files.js";
import { defaultDataDir, issuerFileName, loadSampleData } from "../src/sample-server/data.js";
import { parseAward, parseUnit } from "../src/source/parse.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../src/source/records.js";

const ROUNDS = 40;
const WARM_UP_ROUNDS = 10;
const GENERATED_AT = "2025-06-30T00:00:00Z";

interface RawIssuerFile {
  restrictedStockAwards?: unknown[];
  restrictedStockUnits?: unknown[];
}

/** The value below which a fraction `q` of `values` lie (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

function parseAll(issuerId: string, file: RawIssuerFile): { awards: RestrictedStockAward[]; units: RestrictedStockUnit[] } {
  return {
    awards: (file.restrictedStockAwards ?? []).map((raw) => parseAward(raw, { issuerId }).record),
    units: (file.restrictedStockUnits ?? []).map((raw) => parseUnit(raw, { issuerId }).record),
  };
}

function mapAndPackage(issuerId: string, records: { awards: RestrictedStockAward[]; units: RestrictedStockUnit[] }): number {
  const mapped = mapIssuer({ issuerId, ...records });
  return buildPackageFiles(mapped, { generatedAt: GENERATED_AT }).files.length;
}

/** Runs `fn` and returns the seconds it took. */
function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return (performance.now() - start) / 1000;
}

/**
 * Measures mapping throughput and returns a markdown table (records/s, MB/s and the ratio to the
 * baseline of each path).
 *
 * @param options.signal Aborts the benchmark between rounds.
 */
export async function benchMapping(options: { signal?: AbortSignal } = {}): Promise<string> {
  const data = await loadSampleData(undefined, options);
  const sizes = [...data.issuers].map(([id, r]) => ({ id, n: r.awards.length + r.units.length }));
  const largest = sizes.sort((a, b) => b.n - a.n)[0];
  if (largest === undefined) throw new Error("no sample issuers");
  const issuerId = largest.id;
  const text = await readFile(path.join(defaultDataDir(), issuerFileName(issuerId)), "utf8");
  const megabytes = Buffer.byteLength(text, "utf8") / 1e6;
  const records = parseAll(issuerId, JSON.parse(text) as RawIssuerFile);
  const mapped = mapIssuer({ issuerId, ...records });
  // The same objects the package's files hold: the manifest and one `{ file_type, items }` per list.
  const outputObjects: unknown[] = [buildPackageFiles(mapped, { generatedAt: GENERATED_AT }).manifest];
  const lists = [
    ["OCF_STOCK_PLANS_FILE", mapped.stockPlans],
    ["OCF_STOCK_CLASSES_FILE", mapped.stockClasses],
    ["OCF_VESTING_TERMS_FILE", mapped.vestingTerms],
    ["OCF_TRANSACTIONS_FILE", mapped.transactions],
    ["OCF_STAKEHOLDERS_FILE", mapped.stakeholders],
  ] as const;
  for (const [fileType, items] of lists) if (items.length > 0) outputObjects.push({ file_type: fileType, items });
  const baseline = () => {
    JSON.parse(text);
    for (const object of outputObjects) JSON.stringify(object, null, 2);
  };
  const mappingOnly = () => mapAndPackage(issuerId, records);
  const endToEnd = () => mapAndPackage(issuerId, parseAll(issuerId, JSON.parse(text) as RawIssuerFile));

  // Warm up every path (JIT, and the schemas zod compiles on first use), then interleave.
  for (let i = 0; i < WARM_UP_ROUNDS; i++) {
    baseline();
    mappingOnly();
    endToEnd();
  }
  const seconds = { baseline: [] as number[], mappingOnly: [] as number[], endToEnd: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    options.signal?.throwIfAborted();
    seconds.baseline.push(timed(baseline));
    seconds.mappingOnly.push(timed(mappingOnly));
    seconds.endToEnd.push(timed(endToEnd));
  }
  const base = median(seconds.baseline);
  const row = (what: string, path: number[]) => {
    const s = median(path);
    // The ratio within each round (same moment, same machine load), as quartiles over the rounds.
    const ratios = path.map((t, i) => (seconds.baseline[i] ?? 0) / t);
    const spread = `${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}`;
    return `| ${what} | ${(largest.n / s).toFixed(0)} | ${(megabytes / s).toFixed(1)} | ${(base / s).toFixed(2)} | ${spread} |`;
  };
  return [
    `largest sample issuer ${JSON.stringify(issuerId)}: ${largest.n} records, ${megabytes.toFixed(2)} MB of JSON in, ` +
      `${mapped.transactions.length} transactions out; ${ROUNDS} interleaved rounds after ${WARM_UP_ROUNDS} warm-up rounds, medians. ` +
      "Goal: ratio ≥ 0.33 (within 3x).",
    "",
    "| what | records/s | MB/s (input) | ratio to baseline | per-round ratio, quartiles |",
    "|---|---:|---:|---:|---:|",
    row("baseline: JSON.parse of the input + JSON.stringify of the output", seconds.baseline),
    row("mapIssuer + buildPackageFiles, from parsed records (zod checks of every object, MD5s)", seconds.mappingOnly),
    row("end to end: JSON.parse + parseRecord + mapIssuer + buildPackageFiles", seconds.endToEnd),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  process.stdout.write(`${await benchMapping()}\n`);
}

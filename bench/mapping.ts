/**
 * Mapping throughput for the largest sample issuer, against a baseline measured in the same run:
 * `JSON.parse` of the same input text plus `JSON.stringify` (same two-space form) of the same output
 * objects, i.e. the cost of merely reading the records and writing the package. The goal is mapping
 * within 3x of it (a ratio of at least 0.33). MB/s counts the input JSON.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { mapIssuer } from "../src/mapping/map-issuer.js";
import { buildPackageFiles } from "../src/ocf/package-files.js";
import { defaultDataDir, issuerFileName, loadSampleData } from "../src/sample-server/data.js";
import { parseAward, parseUnit } from "../src/source/parse.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../src/source/records.js";

const ROUNDS = 30;
const GENERATED_AT = "2025-06-30T00:00:00Z";

interface RawIssuerFile {
  restrictedStockAwards?: unknown[];
  restrictedStockUnits?: unknown[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
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

export async function benchMapping(): Promise<string> {
  const data = await loadSampleData();
  const sizes = [...data.issuers].map(([id, r]) => ({ id, n: r.awards.length + r.units.length }));
  const largest = sizes.sort((a, b) => b.n - a.n)[0];
  if (largest === undefined) throw new Error("no sample issuers");
  const issuerId = largest.id;
  const text = await readFile(path.join(defaultDataDir(), issuerFileName(issuerId)), "utf8");
  const megabytes = Buffer.byteLength(text, "utf8") / 1e6;
  const records = parseAll(issuerId, JSON.parse(text) as RawIssuerFile);
  const mapped = mapIssuer({ issuerId, ...records });
  const outputObjects = [
    { issuer: mapped.issuer },
    { file_type: "OCF_STAKEHOLDERS_FILE", items: mapped.stakeholders },
    { file_type: "OCF_STOCK_CLASSES_FILE", items: mapped.stockClasses },
    { file_type: "OCF_STOCK_PLANS_FILE", items: mapped.stockPlans },
    { file_type: "OCF_VESTING_TERMS_FILE", items: mapped.vestingTerms },
    { file_type: "OCF_TRANSACTIONS_FILE", items: mapped.transactions },
  ];
  const baseline = () => {
    JSON.parse(text);
    for (const object of outputObjects) JSON.stringify(object, null, 2);
  };
  const mappingOnly = () => mapAndPackage(issuerId, records);
  const endToEnd = () => mapAndPackage(issuerId, parseAll(issuerId, JSON.parse(text) as RawIssuerFile));

  // Warm up every path (JIT), then interleave so that machine noise hits all of them alike.
  for (let i = 0; i < 5; i++) {
    baseline();
    mappingOnly();
    endToEnd();
  }
  const seconds = { baseline: [] as number[], mappingOnly: [] as number[], endToEnd: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    seconds.baseline.push(timed(baseline));
    seconds.mappingOnly.push(timed(mappingOnly));
    seconds.endToEnd.push(timed(endToEnd));
  }
  const base = median(seconds.baseline);
  const row = (what: string, s: number) =>
    `| ${what} | ${(largest.n / s).toFixed(0)} | ${(megabytes / s).toFixed(1)} | ${(base / s).toFixed(2)} |`;
  return [
    `largest sample issuer ${JSON.stringify(issuerId)}: ${largest.n} records, ${megabytes.toFixed(2)} MB of JSON in, ` +
      `${mapped.transactions.length} transactions out; ${ROUNDS} interleaved rounds, medians. Goal: ratio ≥ 0.33 (within 3x).`,
    "",
    "| what | records/s | MB/s (input) | ratio to baseline |",
    "|---|---:|---:|---:|",
    row("baseline: JSON.parse of the input + JSON.stringify of the output", base),
    row("mapIssuer + buildPackageFiles, from parsed records (zod checks of every object, MD5s)", median(seconds.mappingOnly)),
    row("end to end: JSON.parse + parseRecord + mapIssuer + buildPackageFiles", median(seconds.endToEnd)),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  process.stdout.write(`${await benchMapping()}\n`);
}

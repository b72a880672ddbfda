/**
 * Record parsing (`parseRecord`: schema, decimal and date normalization, warnings) on the largest sample
 * issuer's records, against a baseline measured in the same run: `JSON.parse(JSON.stringify(records))`
 * of the same records, the least any copy of them into fresh objects costs. No HTTP: this isolates what
 * the wire boundary costs per record.
 */
import { loadSampleData } from "../src/sample-server/data.js";
import type { RecordKind } from "../src/source/kinds.js";
import { parseRecord } from "../src/source/parse.js";

const ROUNDS = 40;
const WARM_UP_ROUNDS = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Measures parsing throughput and returns a markdown table (records/s of `parseRecord` and of the JSON
 * round trip, and their ratio).
 *
 * @param options.signal Aborts the benchmark between rounds.
 */
export async function benchParse(options: { signal?: AbortSignal } = {}): Promise<string> {
  const data = await loadSampleData(undefined, options);
  const sizes = [...data.issuers].map(([id, r]) => ({ id, records: r, n: r.awards.length + r.units.length }));
  const largest = sizes.sort((a, b) => b.n - a.n)[0];
  if (largest === undefined) throw new Error("no sample issuers");
  const items: [RecordKind, unknown][] = [
    ...largest.records.awards.map((r): [RecordKind, unknown] => ["restrictedStockAward", r]),
    ...largest.records.units.map((r): [RecordKind, unknown] => ["restrictedStockUnit", r]),
  ];
  const records = items.map(([, raw]) => raw);
  const context = { issuerId: largest.id };

  const roundTrip = (): number => (JSON.parse(JSON.stringify(records)) as unknown[]).length;
  const parseAll = (): number => {
    let parsed = 0;
    for (const [kind, raw] of items) if (parseRecord(kind, raw, context).parsed.record.id !== "") parsed += 1;
    return parsed;
  };

  // warm up both paths (JIT, and the schemas that parseRecord compiles on first use)
  for (let i = 0; i < WARM_UP_ROUNDS; i++) {
    roundTrip();
    parseAll();
  }
  const baseline: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    options.signal?.throwIfAborted();
    // interleave so that machine noise hits both alike
    let t = performance.now();
    const n = roundTrip();
    baseline.push(n / ((performance.now() - t) / 1000));
    t = performance.now();
    const m = parseAll();
    ours.push(m / ((performance.now() - t) / 1000));
    // yield between rounds so that a caller's abort or timer can run
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const b = median(baseline);
  const o = median(ours);
  return [
    `largest sample issuer ${JSON.stringify(largest.id)}: ${largest.n} records, ${ROUNDS} interleaved rounds after ${WARM_UP_ROUNDS} warm-up rounds, medians`,
    "",
    "| what | records/s | time per round | time ÷ baseline time |",
    "|---|---:|---:|---:|",
    `| baseline: JSON.parse(JSON.stringify(records)) | ${b.toFixed(0)} | ${((items.length / b) * 1000).toFixed(2)} ms | 1.00 |`,
    `| ocf-sync parseRecord (schemas, decimals, dates, warnings) | ${o.toFixed(0)} | ${((items.length / o) * 1000).toFixed(2)} ms | ${(b / o).toFixed(2)} |`,
  ].join("\n");
}

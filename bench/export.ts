/**
 * The export of a generated issuer (awards and units with 40 vesting events each; see
 * `generated-issuer.ts`), each run in its own child process so that its peak memory is its own:
 *
 * - peak RSS at 10,000 and at 100,000 records, from records generated in the child (no server on
 *   the machine's 2 cores, no HTTP; each record's text made as it is needed): whether memory stays
 *   flat as records grow tenfold, as the CLI runs (bounded heap growth, `src/cli/heap.ts`) and with
 *   node's default heap growth;
 * - time at 10,000 records against the floor measured in the same run, `JSON.parse` of the input
 *   pages plus `JSON.stringify` of the output package: for the export's own work (records parsed one
 *   at a time from their JSON text, made before the clock starts as the floor's input is; median of
 *   three runs) and once end to end over HTTP from the sample server. The floor is
 *   measured twice: warm, repeated in this process (median of five), and once per process of its own
 *   as the export is (median of three, interleaved with the exports); and the export is also timed
 *   warm, done again in one process as the later issuers of a batch are.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startSampleServer } from "../src/sample-server/server.js";
import { EVENTS, GENERATED_ISSUER_ID, generateIssuer } from "./generated-issuer.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");

export interface ExportChildResult {
  seconds: number;
  /** CPU time of the export's process over the export (all threads, user and system). */
  cpuSeconds: number;
  records: number;
  transactions: number;
  files: number;
  maxRssMb: number;
  validated: boolean;
  /** With `repeat` > 1: the exports done again in the same process, after the first. */
  again: { seconds: number; cpuSeconds: number }[];
}

/** One export in a child process: from `--url URL` or `--generated N` records. */
export async function exportInChild(
  source: ["--url", string] | ["--generated" | "--generated-text", number],
  outDir: string,
  validate: "auto" | "always" | "never" = "auto",
  heap: "cli" | "library" = "cli",
  repeat = 1,
): Promise<ExportChildResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench/export-child.ts"), source[0], String(source[1]), outDir, validate, heap, String(repeat)], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ExportChildResult;
}

/**
 * The floor on this data: parse the input text, stringify the output package's files (median of 5),
 * in wall seconds and in CPU seconds.
 */
async function floorSeconds(inputText: string, packageDir: string): Promise<{ seconds: number; cpuSeconds: number }> {
  const outputs: unknown[] = [];
  for (const file of await readdir(packageDir)) outputs.push(JSON.parse(await readFile(join(packageDir, file), "utf8")));
  const once = (): void => {
    JSON.parse(inputText);
    for (const o of outputs) JSON.stringify(o, null, 2);
  };
  once();
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    once();
    const used = process.cpuUsage(cpu);
    times.push((performance.now() - t) / 1000);
    cpuTimes.push((used.user + used.system) / 1e6);
  }
  return { seconds: median(times), cpuSeconds: median(cpuTimes) };
}

/** The floor once, in a process of its own (`floor-child.ts`): the conditions the export is measured in. */
async function floorInChild(records: number, packageDir: string): Promise<{ seconds: number; cpuSeconds: number }> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench/floor-child.ts"), String(records), packageDir], { cwd: ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { seconds: number; cpuSeconds: number };
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/** Runs of the export at 10,000 records (and of the floor in its own process), interleaved. */
const TIMED_RUNS = 3;

const thousands = (n: number): string => n.toLocaleString("en-US");

export async function benchExport(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), "ocf-sync-bench-export-"));
  try {
    const small = await exportInChild(["--generated", 10_000], join(out, "10k"));
    const large = await exportInChild(["--generated", 100_000], join(out, "100k"));
    // The same with node's own heap growth (a program that calls exportIssuer without the CLI's flag).
    const smallLibrary = await exportInChild(["--generated", 10_000], join(out, "10k-library"), "auto", "library");
    const largeLibrary = await exportInChild(["--generated", 100_000], join(out, "100k-library"), "auto", "library");
    const data = generateIssuer(10_000);
    const inputText = JSON.stringify({ restrictedStockAwards: data.awards, restrictedStockUnits: data.units });
    const floor = await floorSeconds(inputText, join(out, "10k", GENERATED_ISSUER_ID));
    // The export is timed once per process, from a cold start, with the records' text made before the
    // clock starts (as the floor's input is): so is this floor, interleaved with the exports (medians of TIMED_RUNS).
    const exports: ExportChildResult[] = [];
    const coldFloors: { seconds: number; cpuSeconds: number }[] = [];
    for (let i = 0; i < TIMED_RUNS; i++) {
      coldFloors.push(await floorInChild(10_000, join(out, "10k", GENERATED_ISSUER_ID)));
      exports.push(await exportInChild(["--generated-text", 10_000], join(out, `10k-${i}`)));
    }
    // The same export done again in one process, as the later issuers of a batch are: warm, like the warm floor.
    const repeated = await exportInChild(["--generated-text", 10_000], join(out, "10k-repeated"), "auto", "cli", 1 + TIMED_RUNS);
    const warmWall = median(repeated.again.map((r) => r.seconds));
    const warmCpu = median(repeated.again.map((r) => r.cpuSeconds));
    const exportWall = median(exports.map((r) => r.seconds));
    const exportCpu = median(exports.map((r) => r.cpuSeconds));
    const coldFloor = { seconds: median(coldFloors.map((f) => f.seconds)), cpuSeconds: median(coldFloors.map((f) => f.cpuSeconds)) };
    const server = await startSampleServer({ port: 0, data: { issuers: new Map([[GENERATED_ISSUER_ID, data]]) } });
    let http: ExportChildResult;
    try {
      http = await exportInChild(["--url", server.url], join(out, "http"));
    } finally {
      await server.close();
    }
    const row = (label: string, r: ExportChildResult): string =>
      `| ${label} | ${thousands(r.records)} | ${thousands(r.transactions)} | ${r.files} | ${r.seconds.toFixed(1)} s | ${r.maxRssMb.toFixed(0)} MB |`;
    return [
      `generated issuer, half awards and half units, ${EVENTS} vesting events each; each export in its own process, validated (the default)`,
      "",
      "| export | records | transactions | files | time | peak RSS |",
      "|---|---:|---:|---:|---:|---:|",
      row("records generated in the process", small),
      row("records generated in the process", large),
      row("the same, node's default heap growth", smallLibrary),
      row("the same, node's default heap growth", largeLibrary),
      row("over HTTP from the sample server", http),
      "",
      `Peak RSS, 100,000 records against 10,000: ${(large.maxRssMb / small.maxRssMb).toFixed(2)} as the CLI runs (goal <= 1.2); ${(largeLibrary.maxRssMb / smallLibrary.maxRssMb).toFixed(2)} with node's default heap growth.`,
      `CPU at 10,000 records, bounded heap growth against node's default: ${(small.cpuSeconds / smallLibrary.cpuSeconds).toFixed(2)}; at 100,000: ${(large.cpuSeconds / largeLibrary.cpuSeconds).toFixed(2)}.`,
      `Floor at 10,000 records: JSON.parse of the ${(inputText.length / 1e6).toFixed(1)} MB input + JSON.stringify of the output package, ${floor.seconds.toFixed(2)} s (${floor.cpuSeconds.toFixed(2)} s CPU).`,
      `Export at 10,000 records from records in memory (their JSON text made before the clock starts, as the floor's), median of ${exports.length} runs: ${exportWall.toFixed(2)} s wall, ${exportCpu.toFixed(2)} s CPU (runs: ${exports.map((r) => r.seconds.toFixed(2)).join(", ")} s).`,
      `Export against the floor: ${(exportWall / floor.seconds).toFixed(2)}x from records in memory, ${(http.seconds / floor.seconds).toFixed(2)}x over HTTP (goal <= 2).`,
      // CPU against CPU is steadier when other work shares the cores; the server's own CPU is not the export's.
      `Export CPU against the floor's CPU: ${(exportCpu / floor.cpuSeconds).toFixed(2)}x from records in memory, ${(http.cpuSeconds / floor.cpuSeconds).toFixed(2)}x over HTTP.`,
      `The same floor once in a process of its own, as the export runs (median of ${coldFloors.length}): ${coldFloor.seconds.toFixed(2)} s wall, ${coldFloor.cpuSeconds.toFixed(2)} s CPU; export against it: ${(exportWall / coldFloor.seconds).toFixed(2)}x wall, ${(exportCpu / coldFloor.cpuSeconds).toFixed(2)}x CPU.`,
      `The export done again in the same process, as the later issuers of a batch are (median of ${repeated.again.length}, after a first export): ${warmWall.toFixed(2)} s wall, ${warmCpu.toFixed(2)} s CPU; against the warm floor: ${(warmWall / floor.seconds).toFixed(2)}x wall, ${(warmCpu / floor.cpuSeconds).toFixed(2)}x CPU.`,
    ].join("\n");
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

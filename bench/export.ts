/**
 * A full export (pull over HTTP from the sample server, parse, map, write, and optionally validate) of a
 * generated issuer whose awards and units carry 40 vesting events each, in a child process so that its
 * peak memory is measured alone. Beside it, the mapping baseline of the mapping benchmark measured in
 * the same run on the same data: `JSON.parse` of the input plus `JSON.stringify` of the output package.
 * Peak memory at 1,000 and at 10,000 records shows whether it grows with the record count.
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
const ISSUER = GENERATED_ISSUER_ID;

interface ChildResult {
  validated: boolean;
  seconds: number;
  records: number;
  transactions: number;
  maxRssMb: number;
}

async function exportInChild(url: string, outDir: string, validate: "auto" | "always"): Promise<ChildResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench/export-child.ts"), url, ISSUER, outDir, validate], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;
}

/** The mapping benchmark's baseline on this data: parse the input text, stringify the output files. */
async function baselineSeconds(inputText: string, packageDir: string): Promise<number> {
  const outputs: unknown[] = [];
  for (const file of await readdir(packageDir)) outputs.push(JSON.parse(await readFile(join(packageDir, file), "utf8")));
  const once = (): void => {
    JSON.parse(inputText);
    for (const o of outputs) JSON.stringify(o, null, 2);
  };
  once();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    once();
    times.push((performance.now() - t) / 1000);
  }
  return times.sort((a, b) => a - b)[2] ?? 0;
}

export async function benchExport(): Promise<string> {
  const rows: string[] = [];
  let baselineLine = "";
  for (const size of [1_000, 10_000]) {
    const data = generateIssuer(size);
    const server = await startSampleServer({ port: 0, data: { issuers: new Map([[ISSUER, data]]) } });
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-bench-export-"));
    try {
      const streaming = await exportInChild(server.url, out, "auto");
      const validated = await exportInChild(server.url, out, "always");
      rows.push(
        `| ${size.toLocaleString("en-US")} | ${streaming.transactions} | ${(streaming.records / streaming.seconds).toFixed(0)} | ${streaming.maxRssMb.toFixed(0)} MB (${streaming.validated ? "re-read" : "not re-read"}) | ${(validated.records / validated.seconds).toFixed(0)} | ${validated.maxRssMb.toFixed(0)} MB |`,
      );
      if (size === 10_000) {
        const inputText = JSON.stringify({ restrictedStockAwards: data.awards, restrictedStockUnits: data.units });
        const base = await baselineSeconds(inputText, join(out, ISSUER));
        const baseRate = size / base;
        baselineLine = [
          "",
          `At 10,000 records: baseline (JSON.parse of the ${(inputText.length / 1e6).toFixed(1)} MB input + JSON.stringify of the output package) ${baseRate.toFixed(0)} records/s;`,
          `the full export runs at ${((streaming.records / streaming.seconds / baseRate) * 100).toFixed(1)}% of it (ratio ${(streaming.records / streaming.seconds / baseRate).toFixed(3)}), HTTP paging included.`,
        ].join("\n");
      }
    } finally {
      await server.close();
      await rm(out, { recursive: true, force: true });
    }
  }
  return [
    `generated issuer, half awards and half units, ${EVENTS} vesting events each; each export in its own process`,
    "",
    "| records | transactions | export records/s (default --validate auto) | peak RSS | --validate always records/s | peak RSS |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows,
    baselineLine,
  ].join("\n");
}

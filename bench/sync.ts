/**
 * The incremental sync on the generated issuer of `generated-issuer.ts` (40 vesting events a record),
 * served by the sample server in its own process, each operation in a process of its own and timed
 * from its start to its end (wall and CPU), medians of interleaved runs:
 *
 * - at 10,000 records: a full export (the baseline), and a sync in which nothing changed, as ratios
 *   to it (also apart: the first after the full pass, which parses the overlap window's pages, and
 *   the next ones, which get those pages byte for byte again and do not); requests counted, with
 *   those the overlap window's re-reads add; then one changed record;
 * - at 100,000 records: a first sync, a sync in which nothing changed, one changed record;
 * - the sample server's full pull at both sizes, per record (its pages cost O(page size)).
 *
 * `OCF_SYNC_BENCH_SYNC_SIZES=10000` leaves out the 100,000-record issuer (it takes many minutes).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { promisify } from "node:util";
import { GENERATED_ISSUER_ID } from "./generated-issuer.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const RUNS = 5;

interface Measured {
  seconds: number;
  cpuSeconds: number;
  requests: number;
  maxRssMb: number;
  records?: number;
  pass?: string;
  pages?: number;
  reread?: number;
  unchangedPages?: number;
  modified?: number;
  package?: string;
}

interface GeneratedServer {
  url: string;
  touch(index: number): Promise<void>;
  close(): Promise<void>;
}

async function startGeneratedServer(records: number): Promise<GeneratedServer> {
  const child: ChildProcess = spawn(process.execPath, ["--max-old-space-size=8192", "--import", "tsx", join(ROOT, "bench/generated-server.ts"), String(records)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: Interface = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await iterator.next();
    if (line.done === true) throw new Error("the generated sample server stopped");
    return line.value;
  };
  const url = (await next()).replace(/^listening on /, "");
  return {
    url,
    async touch(index) {
      child.stdin?.write(`touch ${index}\n`);
      if ((await next()) !== `touched ${index}`) throw new Error("the generated sample server did not change the record");
    },
    async close() {
      const exited = new Promise((done) => child.once("exit", done));
      child.stdin?.end();
      await exited;
    },
  };
}

async function inChild(operation: "export" | "sync" | "pull", url: string, outDir: string, stateFile: string): Promise<Measured> {
  const { stdout } = await run(process.execPath, ["--max-old-space-size=8192", "--import", "tsx", join(ROOT, "bench/sync-child.ts"), operation, url, GENERATED_ISSUER_ID, outDir, stateFile], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Measured;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const s = (seconds: number): string => (seconds < 1 ? `${(seconds * 1000).toFixed(0)} ms` : `${seconds.toFixed(1)} s`);
const mb = (m: Measured): string => `${m.maxRssMb.toFixed(0)} MB`;

export async function benchSync(): Promise<string> {
  const out: string[] = [];
  const pulls: { records: number; perRecordMs: number; seconds: number }[] = [];
  const sizes = (process.env.OCF_SYNC_BENCH_SYNC_SIZES ?? "10000,100000").split(",").map(Number);
  for (const records of sizes) {
    const server = await startGeneratedServer(records);
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-bench-sync-"));
    const stateFile = join(dir, "state.json");
    const syncOut = join(dir, "synced");
    try {
      const pull = await inChild("pull", server.url, "", "");
      pulls.push({ records, perRecordMs: (pull.seconds * 1000) / records, seconds: pull.seconds });
      const first = await inChild("sync", server.url, syncOut, stateFile);
      if (records < 50_000) {
        const full: Measured[] = [];
        const none: Measured[] = [];
        // Interleaved, so that a slow patch of the machine weighs on both alike.
        for (let i = 0; i < RUNS; i++) {
          full.push(await inChild("export", server.url, join(dir, "exported"), ""));
          none.push(await inChild("sync", server.url, syncOut, stateFile));
        }
        await server.touch(7);
        const one = await inChild("sync", server.url, syncOut, stateFile);
        const fullWall = median(full.map((m) => m.seconds));
        const fullCpu = median(full.map((m) => m.cpuSeconds));
        const noneWall = median(none.map((m) => m.seconds));
        const noneCpu = median(none.map((m) => m.cpuSeconds));
        const sample = none[0] as Measured;
        const later = none.slice(1);
        const laterWall = median(later.map((m) => m.seconds));
        const laterCpu = median(later.map((m) => m.cpuSeconds));
        out.push(
          `generated issuer, ${records.toLocaleString("en-US")} records (40 vesting events each), sample server in its own process, each operation in its own process, timed from its start to its end; medians of ${RUNS} interleaved runs`,
          "",
          "| operation | wall | CPU | requests | peak RSS | ratio to the full export (wall / CPU) |",
          "|---|---:|---:|---:|---:|---:|",
          `| baseline: full export | ${s(fullWall)} | ${s(fullCpu)} | ${full[0]?.requests} | ${mb(full[0] as Measured)} | 1 / 1 |`,
          `| first sync (full pass: pull, map, store, write) | ${s(first.seconds)} | ${s(first.cpuSeconds)} | ${first.requests} | ${mb(first)} | ${(first.seconds / fullWall).toFixed(2)} / ${(first.cpuSeconds / fullCpu).toFixed(2)} |`,
          `| sync, nothing changed (package left as it is; median of all ${RUNS}) | ${s(noneWall)} | ${s(noneCpu)} | ${sample.requests} | ${mb(sample)} | **${(noneWall / fullWall).toFixed(3)} / ${(noneCpu / fullCpu).toFixed(3)}** |`,
          `| … the first of them (after the full pass: parses the window's pages) | ${s(sample.seconds)} | ${s(sample.cpuSeconds)} | ${sample.requests} | ${mb(sample)} | ${(sample.seconds / fullWall).toFixed(3)} / ${(sample.cpuSeconds / fullCpu).toFixed(3)} |`,
          `| … the ${RUNS - 1} next (median; in the last, ${later.at(-1)?.unchangedPages} of ${later.at(-1)?.requests} pages as the previous pass got them, not parsed) | ${s(laterWall)} | ${s(laterCpu)} | ${later[0]?.requests} | ${mb(later[0] as Measured)} | ${(laterWall / fullWall).toFixed(3)} / ${(laterCpu / fullCpu).toFixed(3)} |`,
          `| sync, one record changed (${one.modified} modified; its shard and the package written) | ${s(one.seconds)} | ${s(one.cpuSeconds)} | ${one.requests} | ${mb(one)} | ${(one.seconds / fullWall).toFixed(2)} / ${(one.cpuSeconds / fullCpu).toFixed(2)} |`,
          "",
          `Requests of the sync in which nothing changed: ${sample.requests} = 1 per record kind (2) + ${sample.requests - 2} more pages for the ${sample.reread} records the overlap window (300 s before the cursor) re-reads; those are checked against the store's recent list, not mapped; a page that is byte for byte what the previous pass got, when that pass found nothing changed, is not even parsed (goal: at most 0.05 of the export in wall and CPU).`,
          "",
        );
      } else {
        const none = await inChild("sync", server.url, syncOut, stateFile);
        const again = await inChild("sync", server.url, syncOut, stateFile);
        await server.touch(7);
        const one = await inChild("sync", server.url, syncOut, stateFile);
        out.push(
          `generated issuer, ${records.toLocaleString("en-US")} records: it syncs`,
          "",
          "| operation | wall | CPU | requests | peak RSS |",
          "|---|---:|---:|---:|---:|",
          `| first sync (full pass) | ${s(first.seconds)} | ${s(first.cpuSeconds)} | ${first.requests} | ${mb(first)} |`,
          `| sync, nothing changed (${none.reread} re-read in the overlap window) | ${s(none.seconds)} | ${s(none.cpuSeconds)} | ${none.requests} | ${mb(none)} |`,
          `| sync, nothing changed again (${again.unchangedPages} of ${again.requests} pages as the previous pass got them, not parsed) | ${s(again.seconds)} | ${s(again.cpuSeconds)} | ${again.requests} | ${mb(again)} |`,
          `| sync, one record changed | ${s(one.seconds)} | ${s(one.cpuSeconds)} | ${one.requests} | ${mb(one)} |`,
          "",
        );
      }
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
  const [small, large] = pulls;
  out.push(
    "The sample server's full pull of the generated issuer (bare `streamIssuerRecords`, limiter off), per record:",
    "",
    "| records | pull time | per record |",
    "|---:|---:|---:|",
    ...pulls.map((p) => `| ${p.records.toLocaleString("en-US")} | ${s(p.seconds)} | ${p.perRecordMs.toFixed(3)} ms |`),
    ...(small !== undefined && large !== undefined ? ["", `Per-record time at 100,000 / at 10,000: ${(large.perRecordMs / small.perRecordMs).toFixed(2)} (1 is linear).`] : []),
  );
  return out.join("\n");
}

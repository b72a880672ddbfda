/**
 * `ocf-sync validate` on packages of the generated issuer (written by the export, so split into
 * files of at most 64 MiB), each run in its own child process:
 *
 * - time at 10,000 and at 100,000 transactions against the official OCF validator's approach
 *   (`official-validator.ts`: one Ajv with every official schema, the manifest against
 *   OCFManifestFile, every object of every file against its own schema), median of three runs,
 *   alternated; both time their own work after loading their modules (the official one includes
 *   compiling its schemas, as it must). The official schemas are read from the third-party
 *   folder the tests' conformance gate finds (`$OCF_SYNC_SHARED_DIR`, else the usual place beside
 *   the project); without them that comparison is skipped with a line. Alternated with them, the
 *   floor (`validate-floor-child.ts`: each listed file read whole and parsed, nothing checked), which
 *   bounds what any validator that looks at every object on one thread can gain on the official one.
 * - peak RSS at 10,000 and at 100,000 records: whether memory stays flat as packages grow tenfold.
 *
 * ocf-sync is measured as built (`npm run build`, run first), as the CLI runs it, not through tsx.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { exportInChild } from "./export.js";
import { GENERATED_ISSUER_ID } from "./generated-issuer.js";
import { conformanceGate } from "../test/helpers/gates.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const RUNS = 3;

interface Timed {
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
  objects?: number;
  items?: number;
  valid?: boolean;
  invalid?: number;
}

async function child(script: string, args: string[]): Promise<Timed> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, script), ...args], { cwd: ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Timed;
}

const ours = (path: string): Promise<Timed> => child("bench/validate-child.ts", [path, "dist"]);
const official = (schemas: string, path: string): Promise<Timed> => child("bench/official-validator.ts", [schemas, path]);
const floor = (path: string): Promise<Timed> => child("bench/validate-floor-child.ts", [path]);

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/** The official schemas, in the third-party folder the tests' conformance gate finds (`$OCF_SYNC_SHARED_DIR`). */
function officialSchemas(): string | undefined {
  const shared = conformanceGate().found;
  if (shared === undefined) return undefined;
  const schemas = join(shared, "ocf-schema");
  return existsSync(schemas) ? schemas : undefined;
}

export async function benchValidate(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), "ocf-sync-bench-validate-"));
  const lines: string[] = ["packages of the generated issuer, written by the export (files of at most 64 MiB); each run in its own process; ocf-sync as built (dist/)", ""];
  try {
    await run("npm", ["run", "build", "--silent"], { cwd: ROOT });
    const schemas = officialSchemas();
    if (schemas === undefined) {
      lines.push("official validator comparison skipped: no OCF schemas (set OCF_SYNC_SHARED_DIR to the folder holding ocf-schema/)");
    } else {
      lines.push(
        "| package | objects | ocf-sync validate: wall, CPU | official validator's approach: wall, CPU | speed-up, wall and CPU | floor: read + JSON.parse only, wall | the most one thread can gain: official / floor, wall |",
        "|---|---:|---:|---:|---:|---:|---:|",
      );
      for (const records of [5_000, 50_000]) {
        const dir = join(out, `t${records}`);
        const written = await exportInChild(["--generated", records], dir, "never");
        const path = join(dir, GENERATED_ISSUER_ID);
        const mine: number[] = [];
        const theirs: number[] = [];
        const mineCpu: number[] = [];
        const theirsCpu: number[] = [];
        const floors: number[] = [];
        let objects = 0;
        for (let i = 0; i < RUNS; i++) {
          const a = await ours(path);
          if (a.valid !== true) throw new Error(`the benchmark package ${path} is not valid`);
          objects = a.objects ?? 0;
          mine.push(a.seconds);
          mineCpu.push(a.cpuSeconds);
          const b = await official(schemas, path);
          if (b.invalid !== 0) throw new Error(`the official validator finds ${b.invalid ?? "?"} invalid objects in ${path}`);
          theirs.push(b.seconds);
          theirsCpu.push(b.cpuSeconds);
          const c = await floor(path);
          if (c.items !== b.items) throw new Error(`the floor read ${c.items ?? "?"} items, the official approach ${b.items ?? "?"}, in ${path}`);
          floors.push(c.seconds);
        }
        lines.push(
          `| ${written.transactions.toLocaleString("en-US")} transactions (${records.toLocaleString("en-US")} records, ${written.files} files) | ${objects.toLocaleString("en-US")} | ` +
            `${median(mine).toFixed(2)} s, ${median(mineCpu).toFixed(2)} s | ${median(theirs).toFixed(2)} s, ${median(theirsCpu).toFixed(2)} s | ` +
            `${(median(theirs) / median(mine)).toFixed(2)}x, ${(median(theirsCpu) / median(mineCpu)).toFixed(2)}x | ` +
            `${median(floors).toFixed(2)} s | ${(median(theirs) / median(floors)).toFixed(2)}x |`,
        );
        await rm(dir, { recursive: true, force: true });
      }
      lines.push(
        "",
        "(goal: at least 2x at 10,000 and at 100,000 transactions; CPU time is the steadier figure on a shared machine. The floor reads each listed file whole and parses it, nothing else: no validator that looks at every object on one thread is faster, so the official approach's time over the floor's bounds the speed-up such a validator can have on this machine)",
      );
    }
    lines.push("", "| package | transactions | files | time | peak RSS |", "|---|---:|---:|---:|---:|");
    const rss: number[] = [];
    for (const records of [10_000, 100_000]) {
      const dir = join(out, `r${records}`);
      const written = await exportInChild(["--generated", records], dir, "never");
      const result = await ours(join(dir, GENERATED_ISSUER_ID));
      rss.push(result.maxRssMb);
      lines.push(`| ${records.toLocaleString("en-US")} records | ${written.transactions.toLocaleString("en-US")} | ${written.files} | ${result.seconds.toFixed(1)} s | ${result.maxRssMb.toFixed(0)} MB |`);
      await rm(dir, { recursive: true, force: true });
    }
    lines.push("", `Peak RSS, 100,000 records against 10,000: ${((rss[1] ?? 0) / (rss[0] ?? 1)).toFixed(2)} (goal <= 1.2).`);
    return lines.join("\n");
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

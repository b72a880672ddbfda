/**
 * `ocf-sync reconcile` of the generated issuer (40 vesting events a record) against its own export, at
 * 2,000, 10,000 and 30,000 records: peak memory and time, each run in a process of its own
 * (`reconcile-child.ts`), beside the export of the same records measured in the same run (the export
 * reads and writes the same data: the baseline for time).
 */
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { once } from "node:events";
import { promisify } from "node:util";
import { recordLine } from "../src/pull/ndjson.js";
import { GENERATED_ISSUER_ID, generatedPullItems } from "./generated-issuer.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const AS_OF = "2025-06-30";
const SIZES = [2_000, 10_000, 30_000];

/** The NDJSON `ocf-sync pull` writes for the generated issuer's first `records` records. */
async function writeNdjson(path: string, records: number): Promise<void> {
  const out = createWriteStream(path);
  for await (const item of generatedPullItems(records)) {
    if (item.type !== "record") continue;
    if (!out.write(recordLine(item.kind, GENERATED_ISSUER_ID, item.record.id, item.raw))) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** The last line a child printed, parsed. */
async function child<T>(script: string, args: readonly string[]): Promise<T> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench", script), ...args], { cwd: ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as T;
}

export async function benchReconcile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-bench-reconcile-"));
  try {
    const rows: { records: number; bytes: number; seconds: number; maxRssMb: number; exportSeconds: number; agree: boolean }[] = [];
    for (const records of SIZES) {
      const ndjson = join(dir, `${records}.ndjson`);
      await writeNdjson(ndjson, records);
      const out = join(dir, `export-${records}`);
      const exported = await child<{ seconds: number }>("export-child.ts", ["--generated", String(records), out, "auto"]);
      const reconciled = await child<{ seconds: number; maxRssMb: number; agree: boolean; grants: number }>("reconcile-child.ts", [ndjson, join(out, GENERATED_ISSUER_ID), AS_OF]);
      if (reconciled.grants !== records) throw new Error(`reconcile compared ${reconciled.grants} grants of ${records}`);
      rows.push({ records, bytes: (await stat(ndjson)).size, exportSeconds: exported.seconds, ...reconciled });
      await rm(out, { recursive: true, force: true });
      await rm(ndjson, { force: true });
    }
    const first = rows[0];
    const last = rows.at(-1);
    if (first === undefined || last === undefined) throw new Error("no reconcile measured");
    const perRecordKb = ((last.maxRssMb - first.maxRssMb) * 1024) / (last.records - first.records);
    return [
      `\`ocf-sync reconcile --source NDJSON PACKAGE --as-of ${AS_OF}\` of the generated issuer against its own export, each in its own process:`,
      "",
      "| records | NDJSON | reconcile | export of the same records | ratio | peak RSS | agree |",
      "|---:|---:|---:|---:|---:|---:|:---|",
      ...rows.map(
        (r) =>
          `| ${r.records.toLocaleString("en-US")} | ${(r.bytes / 1e6).toFixed(0)} MB | ${r.seconds.toFixed(1)} s | ${r.exportSeconds.toFixed(1)} s | ${(r.seconds / r.exportSeconds).toFixed(2)}x | ${r.maxRssMb.toFixed(0)} MB | ${r.agree ? "yes" : "NO"} |`,
      ),
      "",
      `Peak RSS, ${last.records.toLocaleString("en-US")} records against ${first.records.toLocaleString("en-US")}: ${(last.maxRssMb / first.maxRssMb).toFixed(2)} (about ${perRecordKb.toFixed(1)} KB more a record; flat is 1.0).`,
    ].join("\n");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

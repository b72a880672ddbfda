/**
 * Shard processes on one credential (issue 26): 4 `ocf-sync export --shard K/4` processes against the
 * sample server enforcing the published quota (10 a second, 300 a minute, with 429s) over 80 issuers,
 * against one process exporting all 80 in the same run. Rows: the shards sharing one quota through
 * Redis (`--rate-limiter`), the shards splitting it (the default: each paces itself to 1/4), and the
 * shards each pacing to the whole quota (as before issue 26), which only the server's RateLimit
 * headers hold back. Goal: 0 failed issuers, 429s at most 1% of the requests, wall time within 1.2x of
 * the single process.
 *
 * The sample server counts in fixed windows aligned to its clock; each run gets a server of its own
 * whose clock starts at 0 when the run starts, so every run meets the same windows. The Redis row
 * needs `redis-server` on the PATH (or OCF_SYNC_REDIS_SERVER); without it the row says so.
 *
 *   npx tsx bench/fleet-quota.ts          # about 5 minutes: each run outlasts a minute window
 *   npm run bench -- fleet
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startSampleServer } from "../src/sample-server/server.js";
import { CLI_FROM_SOURCES } from "../test/helpers/cli-process.js";
import { redisGate } from "../test/helpers/gates.js";
import { startRedisServer } from "../test/helpers/redis-server.js";
import { fleetData } from "./fleet-data.js";

const ISSUERS = Number(process.env.OCF_SYNC_BENCH_FLEET_ISSUERS ?? "80");
const SHARDS = 4;
const QUOTA = { perSecond: 10, perMinute: 300 };
// Which runs (for a closer look at one): single, redis, split, whole.
const ROWS = new Set((process.env.OCF_SYNC_BENCH_FLEET_ROWS ?? "single,redis,split,whole").split(","));

interface Run {
  what: string;
  processes: number;
  failed: number;
  exported: number;
  requests: number;
  rateLimited: number;
  seconds: number;
  /** From the first API request the server saw to the last: the run without its processes' start and end. */
  apiSeconds: number;
}

function exportProcess(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [...CLI_FROM_SOURCES, "export", ...args], { cwd, env: { PATH: process.env.PATH ?? "" }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

/** Runs one export process per element of `shardArgs` at once against a fresh server; counts what they did. */
async function run(what: string, dir: string, shardArgs: readonly string[][], extra: readonly string[] = []): Promise<Run> {
  const data = await fleetData(ISSUERS);
  let startedAt = 0;
  const seen: number[] = [];
  const note = (): void => {
    seen.push(Date.now());
  };
  const logger = { debug: note, info: note, warn: note, error: note };
  const server = await startSampleServer({ quota: QUOTA, data, now: () => Date.now() - startedAt, logger });
  try {
    await writeFile(join(dir, "issuers.txt"), `${server.issuers.join("\n")}\n`);
    const tag = what.replace(/\W+/g, "-");
    startedAt = Date.now();
    const exits = await Promise.all(
      shardArgs.map((shard, i) =>
        exportProcess(["--base-url", server.url, "--issuers-file", "issuers.txt", "--out", `out-${tag}-${i + 1}`, "--json", "--log", "json", ...shard, ...extra], dir).then((exit) => {
          process.stderr.write(`${what} #${i + 1}: exit ${exit.code} at ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${new Date().toISOString()})\n`);
          return exit;
        }),
      ),
    );
    const seconds = (Date.now() - startedAt) / 1000;
    const logs = process.env.OCF_SYNC_BENCH_FLEET_LOGS;
    if (logs !== undefined) await Promise.all(exits.map((exit, i) => writeFile(join(logs, `${tag}-${i + 1}.log`), exit.stderr)));
    let failed = 0;
    let exported = 0;
    for (const exit of exits) {
      // The run record export --json prints.
      let summary: { counts: { ok: number; failed: number } };
      try {
        summary = JSON.parse(exit.stdout) as { counts: { ok: number; failed: number } };
      } catch {
        throw new Error(`${what}: an export exited ${exit.code} without a summary:\n${exit.stderr.slice(-2000)}`);
      }
      failed += summary.counts.failed;
      exported += summary.counts.ok;
    }
    const stats = server.stats();
    const apiSeconds = seen.length === 0 ? 0 : (seen[seen.length - 1]! - seen[0]!) / 1000;
    return { what, processes: shardArgs.length, failed, exported, requests: stats.requests, rateLimited: stats.rateLimited, seconds, apiSeconds };
  } finally {
    await server.close();
  }
}

const shards = (extra: (k: number) => string[]): string[][] => Array.from({ length: SHARDS }, (_, i) => extra(i + 1));

export async function benchFleetQuota(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-bench-fleet-"));
  const gate = redisGate();
  const redis = gate.found === undefined ? undefined : await startRedisServer(gate.found);
  const runs: Run[] = [];
  try {
    if (ROWS.has("single")) runs.push(await run("1 process, all issuers", dir, [[]]));
    if (redis !== undefined && ROWS.has("redis")) {
      runs.push(await run(`${SHARDS} shards, one quota in Redis (--rate-limiter)`, dir, shards((k) => ["--shard", `${k}/${SHARDS}`]), ["--rate-limiter", redis.url]));
    }
    if (ROWS.has("split")) runs.push(await run(`${SHARDS} shards, the quota split (default)`, dir, shards((k) => ["--shard", `${k}/${SHARDS}`])));
    // Rates of 4x the quota, split 4 ways: each shard paces itself to the whole quota, as before.
    if (ROWS.has("whole")) {
      const whole = ["--rate-per-second", String(QUOTA.perSecond * SHARDS), "--rate-per-minute", String(QUOTA.perMinute * SHARDS)];
      runs.push(await run(`${SHARDS} shards, each the whole quota (headers only)`, dir, shards((k) => ["--shard", `${k}/${SHARDS}`]), whole));
    }
  } finally {
    await redis?.close();
    await rm(dir, { recursive: true, force: true });
  }
  const single = runs.find((r) => r.processes === 1) ?? runs[0]!;
  const rows = runs.map((r) => {
    const share = r.requests === 0 ? 0 : (r.rateLimited / r.requests) * 100;
    const vs = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
    return `| ${r.what} | ${r.exported} | ${r.failed} | ${r.requests} | ${r.rateLimited} (${share.toFixed(1)}%) | ${r.seconds.toFixed(1)} s | ${vs(r.seconds, single.seconds)} | ${r.apiSeconds.toFixed(1)} s | ${vs(r.apiSeconds, single.apiSeconds)} |`;
  });
  return [
    `${ISSUERS} issuers (4 requests each) exported against the sample server enforcing ${QUOTA.perSecond}/s and ${QUOTA.perMinute}/min with 429s; goal for the shards: 0 failed, 429s <= 1%, wall <= 1.2x`,
    "",
    "| run | exported | failed | requests | 429s | wall | vs 1 process | first to last request | vs 1 process |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    "Wall: from starting the processes to the last exit (4 processes starting at once on this machine's cores take",
    "longer to start than one). First to last request: as the server saw them.",
    ...(redis === undefined ? ["", `Redis row skipped: ${gate.missing}.`] : []),
  ].join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${await benchFleetQuota()}\n`);
}

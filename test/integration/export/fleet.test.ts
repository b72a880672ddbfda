/**
 * Shard processes on one credential (issue 26, items 1 and 2), as real `ocf-sync export` processes
 * against a sample server that enforces the quota with 429s: by default the shards split the quota
 * (none of them gets a 429 however they overlap); with `--rate-limiter` they share it through a real
 * `redis-server`; and each reads its shard from the orchestrator's variables with `--shard auto`.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetData } from "../../../bench/fleet-data.js";
import { shardOf } from "../../../src/export/export-issuers.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { runCliProcess } from "../../helpers/cli-process.js";
import { describeGated } from "../../helpers/gate.js";
import { redisGate } from "../../helpers/gates.js";
import { type RedisServer, startRedisServer } from "../../helpers/redis-server.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const ISSUERS = 30;
// The server's quota, per second (the minute has room): the shards together must stay under it.
const QUOTA = { perSecond: 10, perMinute: 1000 };

const folder = temporaryFolder("ocf-sync-fleet-");
let server: SampleServer;
beforeAll(async () => {
  // Issuer 7's copies: two requests each (awards, units), so 60 requests in all.
  server = await startSampleServer({ quota: QUOTA, data: await fleetData(ISSUERS, "7") });
  await writeFile(join(folder(), "issuers.txt"), `${server.issuers.join("\n")}\n`);
});
afterAll(async () => {
  await server.close();
});

/** The run record each shard prints with --json. */
interface ExportSummary {
  counts: { issuers: number; ok: number; failed: number };
  issuers: { issuerId: string; status: string }[];
}

/** Runs `n` shard processes at once, each with `shardArgs(k)` and `env(k)` (k from 1), and returns their summaries. */
async function shards(n: number, shardArgs: (k: number) => string[], extra: string[] = [], env: (k: number) => Record<string, string> = () => ({})): Promise<ExportSummary[]> {
  const before = server.stats();
  const runs = Array.from({ length: n }, (_, i) =>
    runCliProcess(
      ["export", "--base-url", server.url, "--issuers-file", "issuers.txt", "--out", `out-${i + 1}-of-${n}`, "--rate-per-second", String(QUOTA.perSecond), "--json", "--log", "plain", ...shardArgs(i + 1), ...extra],
      { cwd: folder(), env: env(i + 1) },
    ),
  );
  const exits = await Promise.all(runs);
  for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
  const summaries = exits.map((exit) => JSON.parse(exit.stdout) as ExportSummary);
  const exported = summaries.flatMap((s) => s.issuers.filter((i) => i.status === "ok").map((i) => i.issuerId));
  expect(exported.sort()).toEqual([...server.issuers].sort());
  const after = server.stats();
  expect({ rateLimited: after.rateLimited - before.rateLimited, requests: after.requests - before.requests }).toEqual({ rateLimited: 0, requests: 2 * ISSUERS });
  return summaries;
}

describe("export shards on one credential", () => {
  it("split the quota by default: two --shard K/2 processes get no 429 from a server enforcing it", { timeout: 120_000 }, async () => {
    await shards(2, (k) => ["--shard", `${k}/2`]);
  });

  it("read their shard from a Kubernetes Indexed Job with --shard auto (0-based, the count from OCF_SYNC_SHARD_COUNT), and split the quota too", { timeout: 120_000 }, async () => {
    const summaries = await shards(2, () => ["--shard", "auto"], [], (k) => ({ JOB_COMPLETION_INDEX: String(k - 1), OCF_SYNC_SHARD_COUNT: "2" }));
    expect(summaries.every((s) => s.counts.failed === 0 && s.counts.ok > 0)).toBe(true);
  });

  it("--shard auto without a count is a usage error (exit 2) that says what to set", async () => {
    const exit = await runCliProcess(["export", "--base-url", server.url, "--issuers-file", "issuers.txt", "--out", "out-x", "--shard", "auto"], {
      cwd: folder(),
      env: { JOB_COMPLETION_INDEX: "1" },
    });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("JOB_COMPLETION_INDEX=1 needs the number of shards: give --shard-count N or set OCF_SYNC_SHARD_COUNT");
  });
});

describe("sync and pull shards", () => {
  it("two sync --shard K/2 processes keep a state each (state.json.shard-K-of-2), split the quota and cover every issuer", { timeout: 120_000 }, async () => {
    const before = server.stats();
    const exits = await Promise.all(
      [1, 2].map((k) =>
        runCliProcess(["sync", "--base-url", server.url, "--issuers-file", "issuers.txt", "--out", `sync-out-${k}`, "--state", "state.json", "--shard", `${k}/2`, "--rate-per-second", String(QUOTA.perSecond), "--json", "--log", "plain"], {
          cwd: folder(),
        }),
      ),
    );
    for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
    const synced = exits.flatMap((exit) => (JSON.parse(exit.stdout) as ExportSummary).issuers.map((i) => i.issuerId));
    expect(synced.sort()).toEqual([...server.issuers].sort());
    expect(server.stats().rateLimited - before.rateLimited).toBe(0);
    const states = (await readdir(folder())).filter((name) => name.startsWith("state.json"));
    expect(states.filter((name) => !name.includes(".lock") && !name.includes(".snapshots")).sort()).toEqual(["state.json.shard-1-of-2", "state.json.shard-2-of-2"]);
  });

  it("pull --shard-index 0 --shard-count 2 pulls only the first slice", async () => {
    const exit = await runCliProcess(["pull", "--base-url", server.url, "--issuers-file", "issuers.txt", "--shard-index", "0", "--shard-count", "2", "--out", "pulled.ndjson", "--log", "plain"], { cwd: folder() });
    expect(exit.code, exit.stderr).toBe(0);
    const lines = (await readFile(join(folder(), "pulled.ndjson"), "utf8")).trim().split("\n");
    const issuers = new Set(lines.map((line) => (JSON.parse(line) as { issuerId: string }).issuerId));
    expect([...issuers].sort()).toEqual(shardOf(server.issuers, 1, 2).sort());
  });
});

const gate = redisGate();
describeGated(gate, "export shards sharing one quota through Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(gate.found!);
  });
  afterAll(async () => {
    await redis.close();
  });

  it("three --shard-index I --shard-count 3 processes with --rate-limiter get no 429", { timeout: 120_000 }, async () => {
    await shards(3, (k) => ["--shard-index", String(k - 1), "--shard-count", "3"], ["--rate-limiter", redis.url]);
  });
});

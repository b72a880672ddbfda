/**
 * The run record (`--summary FILE` of export and sync) and `ocf-sync summarize`: one shape for both
 * commands, checked against the JSON Schema the package ships; a failed issuer and a job that could
 * not run are in it; exit 75 says "retry it", 1 "look at the data".
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

const SCHEMA_FILE = new URL("../../../schemas/run-record.schema.json", import.meta.url);

let server: SampleServer;
let dir: string;
beforeAll(async () => {
  server = await startSampleServer({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-run-record-"));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = async (...argv: string[]): Promise<{ code: number; out: string; err: string }> => {
  const io = captureIo(dir, { OCF_SYNC_TOKEN: "Zq7tokenXv93kLm0pQ" });
  const code = await runCli(argv, io);
  return { code, out: io.stdout.text, err: io.stderr.text };
};

const readJson = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(dir, path), "utf8")) as Record<string, unknown>;

async function validator(): Promise<(data: unknown) => boolean> {
  const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8")) as Record<string, unknown>;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return (data) => {
    const ok = validate(data);
    if (!ok) throw new Error(JSON.stringify(validate.errors, null, 2));
    return ok;
  };
}

describe("the run record", () => {
  it("export: version, times, shard, requests and every issuer, a failed one first; valid by the schema", async () => {
    const valid = await validator();
    // The folder of FILE is made where missing, as --out's is.
    const again = await run("export", "--base-url", server.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", "out", "--as-of", "2025-06-30", "--summary", "runs/export.json", "--log", "plain");
    expect(again.code).toBe(1);
    const written = await readJson("runs/export.json");
    expect(valid(written)).toBe(true);
    expect(written).toMatchObject({
      format: "ocf-sync.run/1",
      tool: { name: "ocf-sync" },
      command: "export",
      shard: null,
      outDir: join(dir, "out"),
      outcome: "issuers-failed",
      exitStatus: 1,
      counts: { issuers: 2, ok: 1, failed: 1 },
      error: null,
    });
    const issuers = written.issuers as { issuerId: string; status: string; error: { code: string } | null; counts: { awards: number } | null; package: { folder: string } | null }[];
    expect(issuers.map((i) => [i.issuerId, i.status, i.error?.code ?? null])).toEqual([
      ["no-such-issuer", "failed", "API_NOT_FOUND"],
      ["7", "ok", null],
    ]);
    expect(issuers[1]?.counts?.awards).toBe(4);
    expect(issuers[1]?.package?.folder).toBe(join(dir, "out", "7"));
    expect((written.requests as { sent: number }).sent).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(written)).not.toContain("Zq7tokenXv93kLm0pQ");
  });

  it("sync: the same shape with each issuer's pass; a lock held is a job that could not run, exit 75, recorded", async () => {
    const valid = await validator();
    const first = await run("sync", "--base-url", server.url, "--issuer", "7", "--out", "sout", "--state", "state.json", "--summary", "runs/sync.json", "--log", "plain");
    expect(first.code).toBe(0);
    const record = await readJson("runs/sync.json");
    expect(valid(record)).toBe(true);
    expect(record).toMatchObject({ command: "sync", outcome: "ok", exitStatus: 0, counts: { issuers: 1, ok: 1, failed: 0 } });
    expect((record.issuers as { sync: { pass: string; reason: string } }[])[0]?.sync).toMatchObject({ pass: "full", reason: "first-run" });

    // Another sync holds the state: process.ppid (the test runner) is alive and is not this process.
    // Written after the runner started: a lock older than its process would name a reused pid.
    await writeFile(join(dir, "state.json.lock"), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: new Date().toISOString() }));
    const locked = await run("sync", "--base-url", server.url, "--issuer", "7", "--out", "sout", "--state", "state.json", "--summary", "runs/locked.json", "--log", "plain");
    await rm(join(dir, "state.json.lock"));
    expect(locked.code).toBe(75);
    const failed = await readJson("runs/locked.json");
    expect(valid(failed)).toBe(true);
    expect(failed).toMatchObject({ outcome: "job-failed", exitStatus: 75, error: { code: "SYNC_LOCKED" }, counts: { issuers: 1, failed: 1 } });
  });

  it("exit 75 when every failure was the API's (no server answered), 1 when an issuer failed on its data or access", async () => {
    const closed = await startSampleServer({ port: 0 });
    const url = closed.url;
    await closed.close();
    const down = await run("export", "--base-url", url, "--issuer", "7", "--out", "down", "--max-attempts", "1", "--summary", "runs/down.json", "--log", "plain");
    expect(down.err).toContain("[API_NETWORK_ERROR]");
    expect(down.code).toBe(75);
    expect(await readJson("runs/down.json")).toMatchObject({ outcome: "issuers-failed", exitStatus: 75 });
  });

  it("summarize merges shards, failures first, names a missing shard, and exits as the worst run says", async () => {
    await mkdir(join(dir, "shards"), { recursive: true });
    const ids = ["7", "acme-robotics", "144361", "no-such-issuer"];
    const shard = (k: number, n: number) => run("export", "--base-url", server.url, ...ids.flatMap((id) => ["--issuer", id]), "--out", "sharded", "--as-of", "2025-06-30", "--shard", `${k}/${n}`, "--summary", `shards/${k}.json`, "--log", "plain");
    for (const k of [1, 2, 3]) await shard(k, 3);
    await writeFile(join(dir, "shards", "notes.json"), '{"not": "a record"}');
    const merged = await run("summarize", "shards", "--json");
    const document = JSON.parse(merged.out) as { counts: { issuers: number; failed: number }; missingShards: number[]; issuers: { issuerId: string; status: string }[]; runs: unknown[] };
    expect(document.runs).toHaveLength(3);
    expect(document.missingShards).toEqual([]);
    expect(document.counts).toEqual({ issuers: 4, ok: 3, failed: 1 });
    expect(document.issuers[0]).toMatchObject({ issuerId: "no-such-issuer", status: "failed" });
    expect(merged.code).toBe(1);

    // One shard's record gone: that shard is named, and the job is one to retry (not a data failure when none failed).
    await mkdir(join(dir, "two"), { recursive: true });
    for (const k of [1, 2]) await writeFile(join(dir, "two", `${k}.json`), await readFile(join(dir, "shards", `${k}.json`)));
    const partial = await run("summarize", "two");
    const failedIds = (JSON.parse((await run("summarize", "two", "--json")).out) as { issuers: { issuerId: string; status: string }[] }).issuers.filter((i) => i.status === "failed");
    expect(partial.out).toContain("missing: no record of shard 3/3");
    expect(partial.code).toBe(failedIds.length > 0 ? 1 : 75);

    const none = await run("summarize", "out");
    expect(none.code).toBe(2);
    expect(none.err).toContain("holds no run record");
  });
});

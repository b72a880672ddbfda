/**
 * Every failure a user can cause ends with a clear, coded line and exit status 1 or 2, never a stack
 * trace, and leaves earlier outputs as they were; deadlines end jobs against servers that never
 * finish. Real loopback servers and real folders.
 *
 * Tests run as root here, and root writes through chmod: a read-only folder made with chmod would not
 * stop it. Unwritable places are made of what stops root too: /proc (which takes no new files or
 * folders), a file where a folder should be, a path under a file, a folder where a file should be,
 * and a device (/dev/null).
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { DeadlineExceededError } from "../../../src/errors.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { answerOnly, trickle } from "../../helpers/hostile-handlers.js";
import { type LoopbackServer, hang, reply, startLoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli } from "../../helpers/spawn-cli.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");
const STACK = /\n\s+at /;

let dir: string;
let samples: SampleServer;
let hanging: LoopbackServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-failures-"));
  samples = await startSampleServer({ port: 0 });
  hanging = await startLoopbackServer(hang);
  await writeFile(join(dir, "a-file"), "not a folder\n");
});
afterAll(async () => {
  await samples.close();
  await hanging.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, err: io.stderr.text, out: io.stdout.text };
}

function expectClean(result: { err: string }): void {
  expect(result.err).not.toMatch(STACK);
  expect(result.err).not.toContain("unexpected error");
}

describe("paths that cannot be used: exit 2 before any work, with the path and why", () => {
  const exportTo = (out: string): Promise<{ code: number; err: string; out: string }> =>
    run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");

  it.each([
    ["an existing file", () => join(dir, "a-file"), "it exists and is not a folder"],
    ["/dev/null", () => "/dev/null", "it exists and is not a folder"],
    ["a folder under /proc, which takes none", () => "/proc/ocf-sync-x", "the file system does not allow new folders in /proc"],
    ["a path under a file", () => join(dir, "a-file", "sub"), "a-file is a file where a folder should be"],
  ])("export --out %s", async (_what, out, why) => {
    const before = samples.stats().requests;
    const result = await exportTo(out());
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync export: --out: cannot create the folder ${out()}: `);
    expect(result.err).toContain(why);
    expect(result.err).toContain("[FILE_SYSTEM_ERROR]");
    expectClean(result);
    expect(samples.stats().requests).toBe(before);
  });

  it.each([
    ["a folder", () => dir, "it is a folder, not a file"],
    ["a file under /proc", () => "/proc/ocf-sync-x.ndjson", "the file system does not allow new files in /proc"],
    ["a file in a folder that does not exist", () => join(dir, "nowhere", "x.ndjson"), "the folder"],
    ["a device", () => "/dev/null", "it is not a regular file"],
  ])("pull --out %s fails before pulling", async (_what, out, why) => {
    const before = samples.stats().requests;
    const result = await run("pull", "--base-url", samples.url, "--issuer", "7", "--out", out());
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync pull: --out: cannot write ${out()}: ${why}`);
    if (why === "the folder") expect(result.err).toContain(`the folder ${join(dir, "nowhere")} does not exist (ENOENT)`);
    expectClean(result);
    expect(samples.stats().requests).toBe(before);
  });

  it("reconcile --html somewhere unwritable fails before reading anything; a folder too", async () => {
    for (const [html, why] of [
      ["/proc/ocf-sync-report.html", "the file system does not allow new files in /proc"],
      [dir, "it is a folder, not a file"],
    ] as const) {
      const result = await run("reconcile", join(GOLDEN, "7"), "--against", join(GOLDEN, "7"), "--html", html);
      expect(result.code).toBe(2);
      expect(result.err).toContain(`ocf-sync reconcile: --html: cannot write ${html}: ${why}`);
      expect(result.out).toBe("");
      expectClean(result);
    }
    // And a good --html is written whole, with no temporary file beside it.
    const good = join(dir, "html-out");
    await mkdir(good);
    const written = await run("reconcile", join(GOLDEN, "7"), "--against", join(GOLDEN, "7"), "--html", join(good, "r.html"));
    expect(written.code).toBe(0);
    // Where it went, on standard error (standard output is the report).
    expect(written.err).toContain(`HTML report written to ${join(good, "r.html")}`);
    expect(written.out).not.toContain("HTML report written");
    expect(await readdir(good)).toEqual(["r.html"]);
    expect(await readFile(join(good, "r.html"), "utf8")).toContain("</html>");
  });

  it("sync --state in a place that takes no folder fails before any work", async () => {
    const before = samples.stats().requests;
    const result = await run("sync", "--base-url", samples.url, "--issuer", "7", "--out", join(dir, "sync-out"), "--state", "/proc/ocf-sync-x/state.json");
    expect(result.code).toBe(2);
    expect(result.err).toContain("ocf-sync sync: --state: cannot create the folder /proc/ocf-sync-x: the file system does not allow new folders in /proc");
    expectClean(result);
    expect(samples.stats().requests).toBe(before);
  });

  it("serve-samples --data refuses a folder that does not exist and a file", async () => {
    const missing = await run("serve-samples", "--data", "/nonexistent-ocf-sync");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--data: cannot read the folder /nonexistent-ocf-sync: it does not exist");
    expectClean(missing);
    const file = await run("serve-samples", "--data", join(dir, "a-file"));
    expect(file.code).toBe(2);
    expect(file.err).toContain(`--data: ${join(dir, "a-file")} is a file; give the folder that holds the issuer files`);
    expectClean(file);
  });
});

describe("flags: exit 2 with the flag named, nothing sent", () => {
  it.each([
    [["export", "--out", "o", "--settlement-class="], "--settlement-class needs a value, got an empty one"],
    [["pull", "--out", ""], "--out needs a value, got an empty one"],
    [["pull", "--modified-after", "2023-02-30"], '--modified-after takes a real UTC time like 2024-07-30T09:31:57Z (or a date like 2024-07-30), got "2023-02-30"'],
    [["pull", "--modified-before", "2023-02-29T00:00:00Z"], '--modified-before takes a real UTC time'],
    [["pull", "--modified-after", "2024-01-01T24:00:00Z"], '--modified-after takes a real UTC time'],
    [["pull", "--token-url", "http://127.0.0.1:1/t", "--client-id", "c", "--client-secret", "s", "--scope", "a b"], '--scope takes one scope without spaces (repeat --scope for more), got "a b"'],
    [["pull", "--deadline", "30"], '--deadline takes a duration from 1ms to 168h with its unit, such as 90s, 15m or 2h; got "30"'],
    [["sync", "--out", "o", "--state", "s.json", "--deadline", "0s"], "--deadline takes a duration"],
    [["sync", "--out", "o", "--state", "s.json", "--overlap", "5 minutes"], '--overlap takes whole seconds (300) or a duration with its unit (90s, 5m, 1h), up to 168h; got "5 minutes"'],
    [["sync", "--out", "o", "--state", "s.json", "--overlap", "1.5s"], "--overlap takes whole seconds"],
    [["sync", "--out", "o", "--state", "s.json", "--overlap", "169h"], "--overlap takes whole seconds"],
  ])("%j", async (args, message) => {
    const [command, ...rest] = args as string[];
    const before = samples.stats().requests;
    const result = await run(command ?? "", "--base-url", samples.url, "--issuer", "7", ...rest);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expectClean(result);
    expect(samples.stats().requests).toBe(before);
  });

  it("reconcile --deadline goes with --base-url", async () => {
    const result = await run("reconcile", join(GOLDEN, "7"), "--against", join(GOLDEN, "7"), "--deadline", "1m");
    expect(result.code).toBe(2);
    expect(result.err).toContain("--deadline bounds the pull from the API: it goes with --base-url");
  });

  it("a date alone is a valid --modified-after: its midnight UTC is sent", async () => {
    const server = await startLoopbackServer(reply(200, { restrictedStockAwards: [], restrictedStockUnits: [] }));
    try {
      const result = await run("pull", "--base-url", server.url, "--issuer", "7", "--modified-after", "2024-02-29", "--log", "plain");
      expect(result.code).toBe(0);
      expect(server.requests[0]?.url).toContain("lastModifiedDatetimeAfter=2024-02-29T00%3A00%3A00Z");
    } finally {
      await server.close();
    }
  });
});

describe("pull --out FILE is replaced only by a complete pull", () => {
  const PREVIOUS = '{"kind":"restrictedStockAward","issuerId":"7","id":"1","record":{}}\n'.repeat(7);

  it("a 401 leaves a previous 7-line backup as it was (exit 1)", async () => {
    const out = join(dir, "backup-401.ndjson");
    await writeFile(out, PREVIOUS);
    const server = await startLoopbackServer(reply(401, { code: 16, message: "bad token" }));
    try {
      const result = await run("pull", "--base-url", server.url, "--issuer", "7", "--token", "wrong-token-1234", "--out", out, "--log", "plain");
      expect(result.code).toBe(1);
      expect(result.err).toContain("FAILED API_UNAUTHORIZED");
      expect(result.err).toContain(`${out} was not written (a previous file there is as it was)`);
      expectClean(result);
    } finally {
      await server.close();
    }
    expect(await readFile(out, "utf8")).toBe(PREVIOUS);
    expect((await readdir(dir)).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("one failed issuer among good ones leaves it as it was too; a complete pull then replaces it", async () => {
    const out = join(dir, "backup-partial.ndjson");
    await writeFile(out, PREVIOUS);
    const partial = await run("pull", "--base-url", samples.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", out, "--log", "json");
    expect(partial.code).toBe(1);
    expect(partial.err).toContain("was not written (a previous file there is as it was)");
    expect(await readFile(out, "utf8")).toBe(PREVIOUS);

    expect((await run("pull", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain")).code).toBe(0);
    const lines = (await readFile(out, "utf8")).trim().split("\n");
    expect(lines.every((line) => (JSON.parse(line) as { issuerId: string }).issuerId === "7")).toBe(true);
  });
});

describe("deadlines end jobs against a server that never answers (exit 75, retry it; earlier outputs intact)", () => {
  it("pull --deadline", async () => {
    const out = join(dir, "deadline.ndjson");
    await writeFile(out, "previous\n");
    const result = await run("pull", "--base-url", hanging.url, "--issuer", "7", "--issuer", "8", "--out", out, "--deadline", "500ms", "--log", "plain");
    expect(result.code).toBe(75);
    expect(result.err).toContain("ocf-sync pull: the job's deadline of 500 ms passed before it finished; what was under way was stopped [DEADLINE_EXCEEDED]");
    expectClean(result);
    expect(await readFile(out, "utf8")).toBe("previous\n");
  });

  it("export --deadline: the previous package stays, nothing temporary is left, the lock is released", async () => {
    const out = join(dir, "deadline-export");
    await mkdir(out);
    await cp(join(GOLDEN, "7"), join(out, "7"), { recursive: true });
    const result = await run("export", "--base-url", hanging.url, "--issuer", "7", "--out", out, "--deadline", "500ms", "--log", "plain");
    expect(result.code).toBe(75);
    expect(result.err).toContain("[DEADLINE_EXCEEDED]");
    expectClean(result);
    // The interrupted job keeps its file, so that --resume can continue it.
    expect((await readdir(out)).sort()).toEqual([".ocf-sync-export.json", "7"]);
    expect((await validatePackageAt(join(out, "7"))).valid).toBe(true);
    // The summary accounts for the issuer the deadline stopped (it said "0 of 0 issuers").
    expect(result.out).toMatch(/\n7 +- +- +- +- +- +FAILED DEADLINE_EXCEEDED/);
    expect(result.out).toContain("0 of 1 issuers exported");
  });

  it("export --deadline --json lists every issuer the deadline stopped as failed by it", async () => {
    const out = join(dir, "deadline-export-json");
    const result = await run("export", "--base-url", hanging.url, "--issuer", "7", "--issuer", "8", "--out", out, "--deadline", "500ms", "--json");
    expect(result.code).toBe(75);
    const summary = JSON.parse(result.out) as { counts: { ok: number; failed: number }; outcome: string; error: { code: string }; issuers: { issuerId: string; status: string; error: { code: string } }[] };
    expect(summary.counts).toMatchObject({ ok: 0, failed: 2 });
    expect(summary).toMatchObject({ outcome: "job-failed", exitStatus: 75, error: { code: "DEADLINE_EXCEEDED" } });
    expect(summary.issuers.map((i) => [i.issuerId, i.status, i.error.code])).toEqual([
      ["7", "failed", "DEADLINE_EXCEEDED"],
      ["8", "failed", "DEADLINE_EXCEEDED"],
    ]);
  });

  it("sync --deadline: the state stays as it was, and the summary lists the issuers it stopped, as export's does", async () => {
    const work = join(dir, "deadline-sync");
    await mkdir(work);
    const result = await run("sync", "--base-url", hanging.url, "--issuer", "7", "--issuer", "8", "--out", join(work, "out"), "--state", join(work, "state.json"), "--deadline", "500ms", "--log", "plain");
    expect(result.code).toBe(75);
    expect(result.err).toContain("ocf-sync sync: the job's deadline of 500 ms passed before it finished; what was under way was stopped [DEADLINE_EXCEEDED]");
    expect(result.err).toContain('issuer "7" was stopped, its previous package and state are kept');
    expectClean(result);
    expect((await readdir(work)).sort()).toEqual(["out"]);
    expect(result.out).toMatch(/\n7 +- +- +- +- +- +- +FAILED DEADLINE_EXCEEDED\n8 +- +- +- +- +- +- +FAILED DEADLINE_EXCEEDED\n/);
    expect(result.out).toContain(`\n0 of 2 issuers synced to ${join(work, "out")} in `);
  });

  it("sync --deadline --json lists every issuer the deadline stopped as failed by it", async () => {
    const work = join(dir, "deadline-sync-json");
    const result = await run("sync", "--base-url", hanging.url, "--issuer", "7", "--issuer", "8", "--out", join(work, "out"), "--state", join(work, "state.json"), "--deadline", "500ms", "--json");
    expect(result.code).toBe(75);
    const document = JSON.parse(result.out) as { issuers: { issuerId: string; status: string; error: { code: string } }[] };
    expect(document.issuers.map((i) => [i.issuerId, i.status, i.error.code])).toEqual([
      ["7", "failed", "DEADLINE_EXCEEDED"],
      ["8", "failed", "DEADLINE_EXCEEDED"],
    ]);
  });

  it("sync stopped by its deadline with one issuer done: the summary has both, the done one as synced", async () => {
    // "7" is answered, "acme-robotics" held; one at a time, "7" is done when the deadline stops "acme-robotics".
    const front = answerOnly(samples.url, (issuerId) => issuerId === "7");
    const held = await startLoopbackServer(front.handler);
    const controller = new AbortController();
    // The deadline passes at the state the test waits for: the command meets the error its own --deadline gives.
    void front.held.then(() => controller.abort(new DeadlineExceededError(60_000)));
    const work = join(dir, "deadline-sync-half");
    const io = captureIo(dir, {}, controller.signal);
    try {
      const code = await runCli(["sync", "--base-url", held.url, "--issuer", "7", "--issuer", "acme-robotics", "--concurrency", "1", "--out", join(work, "out"), "--state", join(work, "state.json"), "--log", "plain"], io);
      expect(code).toBe(75);
    } finally {
      await held.close();
    }
    expect(io.stderr.text).toContain("[DEADLINE_EXCEEDED]");
    expect(io.stdout.text).toMatch(/\n7 +full \(first-run\) +7 +\d+ +0 +0 +0 +ok\nacme-robotics +- +- +- +- +- +- +FAILED DEADLINE_EXCEEDED\n/);
    expect(io.stdout.text).toContain("\nacme-robotics: failed: the job's deadline of 60 s passed");
    expect(io.stdout.text).toContain(`\n1 of 2 issuers synced to ${join(work, "out")} in `);
  });

  it("reconcile --base-url --deadline", async () => {
    const result = await run("reconcile", "--base-url", hanging.url, "--issuer", "7", join(GOLDEN, "7"), "--deadline", "500ms");
    expect(result.code).toBe(75);
    expect(result.err).toContain("[DEADLINE_EXCEEDED]");
    expectClean(result);
  });
});

describe("the real process", () => {
  it("pull against a body sent one byte a second, --timeout-ms 5000 --max-attempts 2: a timeout error, exit 75 (retry it), the previous --out intact", async () => {
    const server = await startLoopbackServer(trickle(JSON.stringify({ restrictedStockAwards: [], nextPageToken: "" }), 1000));
    const work = await mkdtemp(join(dir, "trickle-"));
    const out = join(work, "backup.ndjson");
    await writeFile(out, "line 1\nline 2\n");
    try {
      const cli = spawnCli(["pull", "--base-url", server.url, "--issuer", "7", "--timeout-ms", "5000", "--max-attempts", "2", "--out", out, "--log", "plain"]);
      const result = await cli.exited;
      expect(result.code).toBe(75);
      expect(result.stderr).toContain("failed: timed out: the response (headers and whole body) did not arrive within 5000 ms after 2 attempts");
      expect(result.stderr).toContain("FAILED API_TIMEOUT");
      expect(result.stderr).not.toMatch(STACK);
      // Two attempts of each list (awards and units are paged at the same time), and no more.
      expect(server.requests).toHaveLength(4);
      expect(new Set(server.requests.map((r) => r.url.replace(/\?.*$/, ""))).size).toBe(2);
    } finally {
      await server.close();
    }
    expect(await readFile(out, "utf8")).toBe("line 1\nline 2\n");
    expect(await readdir(work)).toEqual(["backup.ndjson"]);
  });

  it("a usage error and a file-system error end with their line and status, no stack trace", async () => {
    const usage = await spawnCli(["export", "--base-url", samples.url, "--issuer", "7", "--out", "/proc/ocf-sync-y"]).exited;
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe("ocf-sync export: --out: cannot create the folder /proc/ocf-sync-y: the file system does not allow new folders in /proc (ENOENT) [FILE_SYSTEM_ERROR]");
    const data = await spawnCli(["serve-samples", "--data", "/nonexistent-ocf-sync"]).exited;
    expect(data.code).toBe(2);
    expect(data.stderr).not.toMatch(STACK);
  });
});

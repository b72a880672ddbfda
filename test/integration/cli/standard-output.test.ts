/**
 * Standard output that fails: a full disk (`> /dev/full`, ENOSPC) or a reader that went away
 * (`| head -1`, EPIPE). Every command stops, cleans up as after a failure, and ends with one line on
 * standard error and status 1 (ENOSPC), or quietly with 141 as SIGPIPE ends other tools (EPIPE);
 * never with an uncaught exception and its stack trace, never leaving a pull's part files behind.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { CLI_FROM_SOURCES, PROJECT_ROOT } from "../../helpers/cli-process.js";

const STACK = /\n\s+at /;
const FULL = "/dev/full";

let dir: string;
let samples: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-stdout-"));
  samples = await startSampleServer({ port: 0 });
  // A package and the source it came from, for reconcile.
  expect(await runCli(["export", "--base-url", samples.url, "--issuer", "7", "--out", "given", "--as-of", "2025-06-30"], captureIo(dir))).toBe(0);
  expect(await runCli(["pull", "--base-url", samples.url, "--issuer", "7", "--out", "7.ndjson"], captureIo(dir))).toBe(0);
});
afterAll(async () => {
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI with standard output on /dev/full or on a pipe closed before the process runs a line,
 * and its temporary folder (`TMPDIR`, where a pull to standard output keeps its part files) a fresh one.
 */
async function runWithStdout(stdout: "full" | "closed", args: readonly string[]): Promise<{ code: number | null; stderr: string; temporary: string[] }> {
  const temporary = await mkdtemp(join(dir, "tmp-"));
  const fd = stdout === "full" ? openSync(FULL, "w") : "pipe";
  try {
    const child = spawn(process.execPath, [...CLI_FROM_SOURCES, ...args], { cwd: dir, env: { ...process.env, TMPDIR: temporary }, stdio: ["ignore", fd, "pipe"] });
    child.stdout?.destroy();
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on("close", (status) => done(status)));
    // tsx keeps its cache there too.
    return { code, stderr, temporary: (await readdir(temporary)).filter((name) => !name.startsWith("tsx-")) };
  } finally {
    if (typeof fd === "number") closeSync(fd);
  }
}

const COMMANDS: [string, () => string[]][] = [
  ["pull", () => ["pull", "--base-url", samples.url, "--issuer", "144361", "--issuer", "7"]],
  ["export", () => ["export", "--base-url", samples.url, "--issuer", "7", "--out", "exported", "--json"]],
  ["sync", () => ["sync", "--base-url", samples.url, "--issuer", "7", "--out", "synced", "--state", "synced.state.json", "--json"]],
  ["validate", () => ["validate", join(PROJECT_ROOT, "samples/ocf/144361"), "--json"]],
  ["reconcile", () => ["reconcile", "--source", "7.ndjson", "given/7", "--as-of", "2025-06-30", "--json"]],
  ["reconcile", () => ["reconcile", "--source", "7.ndjson", "given/7", "--as-of", "2025-06-30", "--csv"]],
  ["serve-samples", () => ["serve-samples", "--port", "0"]],
];

describe.runIf(existsSync(FULL))("standard output on a full disk (> /dev/full)", () => {
  it.each(COMMANDS)("%s: one line naming standard output and ENOSPC, status 1, no part file left", async (command, args) => {
    const { code, stderr, temporary } = await runWithStdout("full", args());
    expect(stderr).not.toMatch(STACK);
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split("\n");
    expect(lines.filter((line) => line.includes("standard output"))).toEqual([
      `ocf-sync ${command}: cannot write to standard output: the disk is full (ENOSPC) [FILE_SYSTEM_ERROR]`,
    ]);
    expect(lines.at(-1)).toContain("standard output");
    expect(temporary).toEqual([]);
  });

  it("with --log json the line is a JSON log line with the code", async () => {
    const { code, stderr } = await runWithStdout("full", ["pull", "--base-url", samples.url, "--issuer", "7", "--log", "json"]);
    expect(code).toBe(1);
    const last = JSON.parse(stderr.trimEnd().split("\n").at(-1) ?? "") as Record<string, unknown>;
    expect(last).toMatchObject({ level: "error", msg: "ocf-sync pull: cannot write to standard output: the disk is full (ENOSPC)", code: "FILE_SYSTEM_ERROR" });
  });

  it("the packages an export wrote are in place and complete: only its summary was lost", async () => {
    const { code } = await runWithStdout("full", ["export", "--base-url", samples.url, "--issuer", "7", "--out", "kept", "--json"]);
    expect(code).toBe(1);
    expect((await readdir(join(dir, "kept"))).sort()).toEqual(["7", "7.report.json"]);
    expect(await runCli(["validate", "kept/7"], captureIo(dir))).toBe(0);
  });
});

describe("standard output whose reader went away (| head -1)", () => {
  it.each(COMMANDS)("%s: status 141, quietly, no part file left", async (_command, args) => {
    const { code, stderr, temporary } = await runWithStdout("closed", args());
    expect(code).toBe(141);
    expect(stderr).not.toMatch(STACK);
    expect(stderr).not.toContain("EPIPE");
    expect(stderr).not.toContain("standard output");
    expect(temporary).toEqual([]);
  });
});

/**
 * The command line's conventions, in real child processes: results on stdout and everything else on
 * stderr; `--json`; no escape codes where the terminal or the user says so (`TERM=dumb`, `NO_COLOR`);
 * one clear line for a Node.js older than the package supports.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { CLI_FROM_SOURCES, PROJECT_ROOT, runCliProcess } from "../../helpers/cli-process.js";

let dir: string;
let server: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-conventions-"));
  server = await startSampleServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const exportArgs = (out: string, ...more: string[]): string[] => [
  "export",
  "--base-url",
  server.url,
  "--issuer",
  "7",
  "--issuer",
  "acme-robotics",
  "--out",
  out,
  "--generated-at",
  "2025-06-30T00:00:00Z",
  ...more,
];

describe("ocf-sync export output", () => {
  it("prints the summary on stdout and the log lines on stderr", async () => {
    const run = await runCliProcess(exportArgs("out-plain", "--log", "plain"), { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const stdout = run.stdout.split("\n");
    expect(stdout[0]).toMatch(/^issuer +awards +units +transactions +warnings +quarantined +status +package$/);
    expect(stdout.filter((line) => /^(7|acme-robotics) /.test(line)).map((line) => line.split(/ {2,}/).at(-1))).toEqual(["7", "acme-robotics"]);
    expect(run.stdout).toContain(`2 of 2 issuers exported to ${join(dir, "out-plain")} in `);
    expect(run.stdout).not.toContain("transactions from");
    expect(run.stderr).toContain(`issuer "7": 31 transactions from 4 awards and 3 units -> ${join(dir, "out-plain", "7")}`);
    expect(run.stderr).not.toContain("issuers exported");
  });

  it("prints the summary as one JSON document with --json, and reports failures in it", async () => {
    const run = await runCliProcess(exportArgs("out-json", "--issuer", "no-such-issuer", "--zip", "--json", "--log", "json"), { cwd: dir });
    expect(run.code).toBe(1);
    const out = join(dir, "out-json");
    // The run record (the document --summary writes): failed issuers first, then the others in the order given.
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ command: "export", outDir: out, outcome: "issuers-failed", exitStatus: 1, counts: { issuers: 3, ok: 2, failed: 1 }, error: null });
    expect(summary.issuers).toEqual([
      { issuerId: "no-such-issuer", status: "failed", retry: false, package: null, counts: null, error: { code: "API_NOT_FOUND", message: expect.stringContaining("404") as string } },
      {
        issuerId: "7",
        status: "ok",
        retry: false,
        package: { name: "7", folder: join(out, "7"), zip: join(out, "7.ocf.zip"), report: join(out, "7.report.json"), written: true, validated: true, bytes: expect.any(Number) as number },
        counts: { awards: 4, units: 3, transactions: 31, warnings: 5, quarantined: 0 },
        error: null,
      },
      expect.objectContaining({ issuerId: "acme-robotics", status: "ok", package: expect.objectContaining({ name: "acme-robotics" }), counts: expect.objectContaining({ transactions: 38 }) }),
    ]);
    // The logs are JSON lines on stderr, every one of them.
    const logs = run.stderr.trim().split("\n").map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(logs.some((l) => l.level === "error" && l.msg.includes("no-such-issuer"))).toBe(true);
  });
});

describe("--log json", () => {
  /** The one line of standard error, as JSON, checked for the shape of every --log json line. */
  const jsonLine = (stderr: string): { time: string; level: string; msg: string; code: string } => {
    const lines = stderr.trimEnd().split("\n");
    expect(lines, stderr).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? "") as { time: string; level: string; msg: string; code: string };
    expect(Object.keys(line)).toEqual(["time", "level", "msg", "code"]);
    expect(new Date(line.time).toISOString()).toBe(line.time);
    return line;
  };

  it.each([
    ["an unknown option", ["export", "--log", "json", "--bogus"], "ocf-sync export: Unknown option '--bogus'\nRun 'ocf-sync export --help' for the options."],
    ["an option of another command", ["validate", "--issuer", "7", "--log=json"], "ocf-sync validate: Unknown option '--issuer': --issuer is an option of export, pull, reconcile, sync; not of validate"],
    ["an unknown command", ["exprot", "--log", "json"], 'ocf-sync: unknown command "exprot"; did you mean export?\nCommands: demo, export'],
    ["a bad value", ["sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--state", "s.json", "--concurrency", "many", "--log", "json"], 'ocf-sync sync: --concurrency takes a whole number, got "many"'],
  ])("makes a usage error (%s) one JSON log line on standard error, status 2", async (_what, args, msg) => {
    const run = await runCliProcess(args, { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    const line = jsonLine(run.stderr);
    expect(line.level).toBe("error");
    expect(line.msg.startsWith(msg), line.msg).toBe(true);
    expect(line.code).toBe("USAGE_ERROR");
  });

  it("gives a usage error that has a code its code", async () => {
    const run = await runCliProcess(["export", "--base-url", server.url, "--issuer", "7", "--out", "/proc/ocf-sync-x", "--log", "json"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(jsonLine(run.stderr)).toMatchObject({ level: "error", code: "FILE_SYSTEM_ERROR", msg: expect.stringContaining("--out: cannot create the folder /proc/ocf-sync-x") as string });
  });

  it("makes a failure of the whole job (a state it cannot read) one JSON log line too, with its code, status 1", async () => {
    const state = join(dir, "state-log-json.json");
    await writeFile(state, "{ not json");
    const run = await runCliProcess(["sync", "--base-url", server.url, "--issuer", "7", "--out", "out-sync-log-json", "--state", state, "--log", "json"], { cwd: dir });
    expect(run.code).toBe(1);
    const line = jsonLine(run.stderr);
    expect(line).toMatchObject({ level: "error", code: "SYNC_STATE_INVALID" });
    expect(line.msg).toContain("ocf-sync sync: ");
    expect(line.msg).toContain("is not JSON");
    const plain = await runCliProcess(["sync", "--base-url", server.url, "--issuer", "7", "--out", "out-sync-log-json", "--state", state, "--log", "plain"], { cwd: dir });
    expect(plain.stderr).toMatch(/^ocf-sync sync: .*is not JSON.* \[SYNC_STATE_INVALID\]\n$/s);
  });

  it("only when asked: a --log value that is not json leaves the usage error as text", async () => {
    const run = await runCliProcess(["export", "--log", "plain", "--bogus"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("ocf-sync export: Unknown option '--bogus'\nRun 'ocf-sync export --help' for the options.\n");
  });
});

describe("--json of export and sync when the whole job fails", () => {
  interface FailureDocument {
    outDir: string | null;
    outcome: string;
    exitStatus: number;
    counts: { issuers: number; ok: number; failed: number };
    issuers: { issuerId: string; status: string; error: { code: string; message: string } }[];
    error: { code: string; message: string };
  }
  /** Standard output is one JSON document (the run record), every issuer named failed by the job's error. */
  const documentOf = (stdout: string, code: string, issuers: string[]): FailureDocument => {
    const document = JSON.parse(stdout) as FailureDocument;
    expect(document.error.code).toBe(code);
    expect(document.outcome).toBe("job-failed");
    expect(document.counts).toEqual({ issuers: issuers.length, ok: 0, failed: issuers.length });
    expect(document.issuers).toEqual(issuers.map((issuerId) => ({ issuerId, status: "failed", retry: false, package: null, counts: null, error: document.error })));
    return document;
  };

  it("export: an output folder it cannot use is one document with the error's code and message, status 2 as before", async () => {
    const run = await runCliProcess(exportArgs("/proc/ocf-sync-json", "--json"), { cwd: dir });
    expect(run.code).toBe(2);
    const document = documentOf(run.stdout, "FILE_SYSTEM_ERROR", ["7", "acme-robotics"]);
    expect(document).toMatchObject({ outDir: "/proc/ocf-sync-json", exitStatus: 2 });
    expect(document.error.message).toBe("--out: cannot create the folder /proc/ocf-sync-json: the file system does not allow new folders in /proc (ENOENT)");
    // Standard error says it as before.
    expect(run.stderr).toBe(`ocf-sync export: ${document.error.message} [FILE_SYSTEM_ERROR]\n`);
  });

  it("export: arguments that cannot be parsed are a document too, with what is known (nothing yet)", async () => {
    const run = await runCliProcess(["export", "--json", "--issuer", "7", "--bogus"], { cwd: dir });
    expect(run.code).toBe(2);
    const document = documentOf(run.stdout, "USAGE_ERROR", []);
    expect(document).toMatchObject({ outDir: null, exitStatus: 2 });
    expect(document.error.message).toBe("Unknown option '--bogus'\nRun 'ocf-sync export --help' for the options.");
  });

  it("sync: a state it cannot read is one document, status 1 as before, and no secret is in it", async () => {
    // The secret in the state's path puts it in the message: it is redacted on standard output as on standard error.
    const secret = "tok-json-5e8d1c7a";
    const state = join(dir, `state-${secret}.json`);
    await writeFile(state, "{ not json");
    const run = await runCliProcess(
      ["sync", "--base-url", server.url, "--issuer", "7", "--out", "out-sync-json", "--state", state, "--json"],
      { cwd: dir, env: { OCF_SYNC_TOKEN: secret } },
    );
    expect(run.code).toBe(1);
    const document = documentOf(run.stdout, "SYNC_STATE_INVALID", ["7"]);
    expect(document).toMatchObject({ command: "sync", exitStatus: 1 });
    expect(document.error.message).toContain("is not JSON");
    expect(document.error.message).toContain("[REDACTED]");
    expect(run.stdout + run.stderr).not.toContain(secret);
  });
});

describe("--json of validate and reconcile when they cannot run", () => {
  /** Every document opens with the version and the time it was made. */
  const STAMP = { ocfSyncVersion: expect.stringMatching(/^\d+\.\d+\.\d+/) as string, generatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string };

  it("validate: a usage error is one document naming the package (null when none was given), status 2", async () => {
    const none = await runCliProcess(["validate", "--json"], { cwd: dir });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toEqual({
      ...STAMP,
      path: null,
      valid: false,
      error: { code: "USAGE_ERROR", message: "takes exactly one PATH (a package folder or .ocf.zip), got 0\nRun 'ocf-sync validate --help' for the options." },
    });
    expect(none.stderr).toContain("ocf-sync validate: takes exactly one PATH");
    const reader = await runCliProcess(["validate", "pkg", "--reader", "sideways", "--json"], { cwd: dir });
    expect(reader.code).toBe(2);
    expect(JSON.parse(reader.stdout)).toMatchObject({ path: join(dir, "pkg"), valid: false, error: { code: "USAGE_ERROR" } });
    // Unusable input keeps its own document, once.
    const missing = await runCliProcess(["validate", "no-such-package", "--json"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ path: join(dir, "no-such-package"), valid: false, unusable: { code: "PACKAGE_UNUSABLE" } });
  });

  it("reconcile: a usage error is one document, and so is input it cannot use, status 2", async () => {
    const both = await runCliProcess(["reconcile", "pkg", "--against", "other", "--json", "--csv"], { cwd: dir });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout)).toEqual({ ...STAMP, agree: false, error: { code: "USAGE_ERROR", message: "give --json or --csv, not both\nRun 'ocf-sync reconcile --help' for the options." } });
    const missing = await runCliProcess(["reconcile", "no-such-package", "--against", "other", "--json"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ agree: false, unusable: { code: "PACKAGE_UNUSABLE" } });
  });
});

/** Runs the CLI under a pseudo-terminal (util-linux `script`), so that it sees a real TTY. */
function inTerminal(args: readonly string[], env: Record<string, string>): Promise<string> {
  const quote = (arg: string): string => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, ...CLI_FROM_SOURCES, ...args].map(quote).join(" ");
  return new Promise((done, fail) => {
    execFile("script", ["-qec", command, "/dev/null"], { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env } }, (error, stdout) => {
      if (error !== null) fail(new Error(`${error.message}\n${stdout}`));
      else done(stdout);
    });
  });
}

describe.runIf(process.platform === "linux")("on a terminal", () => {
  it("draws a progress bar with escape codes on an ordinary terminal", async () => {
    const output = await inTerminal(exportArgs("out-tty"), { TERM: "xterm-256color" });
    expect(output).toContain("\u001b[2K");
    expect(output).toMatch(/\[[#-]{24}\] \d\/2 issuers/);
  });

  it("writes no escape code and no progress bar when TERM=dumb", async () => {
    const output = await inTerminal(exportArgs("out-dumb"), { TERM: "dumb" });
    expect(output).toContain("2 of 2 issuers exported");
    expect(output).not.toContain("\u001b");
    expect(output).not.toMatch(/\[[#-]{24}\]/);
  });

  it("writes no escape code when NO_COLOR is set, redrawing the bar with spaces instead", async () => {
    const output = await inTerminal(exportArgs("out-no-color"), { TERM: "xterm-256color", NO_COLOR: "1" });
    expect(output).toContain("2 of 2 issuers exported");
    expect(output).not.toContain("\u001b");
    expect(output).toMatch(/\[[#-]{24}\] \d\/2 issuers/);
  });
});

describe("bin/ocf-sync.cjs on an older Node.js", () => {
  const BIN = join(PROJECT_ROOT, "bin", "ocf-sync.cjs");
  let preload: string;
  beforeAll(async () => {
    // The version this process reports is the only thing the check reads.
    preload = join(dir, "pretend-version.cjs");
    await writeFile(preload, 'Object.defineProperty(process.versions, "node", { value: process.env.PRETEND_NODE_VERSION });\n');
  });

  const runAs = (version: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ["--require", preload, BIN, "--version"], { env: { PRETEND_NODE_VERSION: version } }, (error, stdout, stderr) =>
        done({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
      );
    });

  it.each(["20.18.3", "18.20.4", "16.0.0", "8.17.0"])("refuses %s with one line naming both versions, before loading anything", async (version) => {
    const run = await runAs(version);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`ocf-sync needs Node.js 20.19 or newer, but this is Node.js ${version} (${process.execPath}); install a current Node.js from https://nodejs.org\n`);
  });

  it.each(["20.19.0", "22.0.0", process.versions.node])("lets %s through", async (version) => {
    const run = await runAs(version);
    expect(run.stderr).not.toContain("needs Node.js");
  });

  it("reads the supported range from package.json, and is written in syntax any Node.js parses", async () => {
    const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, "package.json"), "utf8")) as { engines: { node: string }; bin: Record<string, string> };
    expect(pkg.engines.node).toMatch(/^>=\d+\.\d+(\.\d+)?$/);
    expect(pkg.bin).toEqual({ "ocf-sync": "bin/ocf-sync.cjs" });
    const source = await readFile(BIN, "utf8");
    // ES5 and CommonJS: no arrow functions, let/const, classes, template literals, spread, import().
    expect(source.replace(/\/\/.*$/gm, "")).not.toMatch(/=>|\blet\b|\bconst\b|\bclass\b|`|\.\.\.|\bimport\b|\basync\b|\?\?|\?\./);
  });
});

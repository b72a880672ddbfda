/**
 * What a new-user audit of the command line found: each test fails without its fix. In-process runs
 * of the real CLI (`runCli`) against the sample API on loopback and real folders.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeSetSummary } from "../../../src/cli/commands/sync.js";
import { runCli } from "../../../src/cli/main.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { sync, type IssuerSyncResult, type SyncOptions } from "../../../src/sync/sync.js";
import { summarizeChangeSet } from "../../../src/sync/change-set.js";
import { captureIo } from "../../helpers/capture.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");

let dir: string;
let samples: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-audit-"));
  samples = await startSampleServer({ port: 0 });
});
afterAll(async () => {
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; err: string; out: string }> {
  const io = captureIo(dir, env);
  const code = await runCli(argv, io);
  return { code, err: io.stderr.text, out: io.stdout.text };
}

describe("reconcile and OCF_SYNC_BASE_URL", () => {
  it("takes the variable as the API source when neither --source nor --against is given", async () => {
    const result = await run(["reconcile", "--issuer", "7", join(GOLDEN, "7"), "--json"], { OCF_SYNC_BASE_URL: samples.url });
    expect(result.err).not.toContain("give exactly one of");
    expect(result.code).not.toBe(2);
    const document = JSON.parse(result.out) as { reports: { labels?: unknown }[] };
    expect(JSON.stringify(document.reports[0])).toContain(`source (API ${samples.url})`);
  });

  it("leaves the variable alone with --source, and says what it needs without --issuer", async () => {
    const withSource = await run(["reconcile", "--source", join(dir, "none.ndjson"), join(GOLDEN, "7")], { OCF_SYNC_BASE_URL: samples.url });
    expect(withSource.err).not.toContain("give exactly one of");
    const noIssuer = await run(["reconcile", join(GOLDEN, "7")], { OCF_SYNC_BASE_URL: samples.url });
    expect(noIssuer.code).toBe(2);
    expect(noIssuer.err).toContain("OCF_SYNC_BASE_URL (from the environment) needs --issuer ID");
  });
});

describe("--json of a usage error found once the issuers are known", () => {
  it.each([
    ["export, a bad --on-invalid", ["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--issuer", "8", "--out", "x", "--json", "--on-invalid", "nah"]],
    ["export, no --out", ["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--issuer", "8", "--json"]],
    ["sync without --state", ["sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--issuer", "8", "--out", "x", "--json"]],
  ])("%s: every issuer named is failed with the error", async (_what, argv) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    const document = JSON.parse(result.out) as { issuers: { issuerId: string; status: string; error: { code: string } }[]; error: { code: string } };
    expect(document.error.code).toBe("USAGE_ERROR");
    // The run record's entries: a job that could not run leaves no package and nothing to count.
    expect(document.issuers).toEqual(["7", "8"].map((issuerId) => ({ issuerId, status: "failed", retry: false, package: null, counts: null, error: document.error })));
  });
});

describe("an --out folder that exists but takes no file is an argument error (2), as one that cannot be made is", () => {
  // /proc exists and takes no new file, for root too (the tests run as root, whom chmod does not stop).
  it.each([
    ["export", ["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "/proc", "--log", "plain"], "--out"],
    ["sync --out", ["sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "/proc", "--state", "state.json", "--log", "plain"], "--out"],
    ["sync --state", ["sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "sync-out", "--state", "/proc/state.json", "--log", "plain"], "--state"],
    ["demo", ["demo", "--out", "/proc"], "--out"],
  ])("%s", async (_what, argv, option) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`${option}: cannot write in the folder /proc: the file system does not allow new files in it (ENOENT) [FILE_SYSTEM_ERROR]`);
    // demo checks its --out before it starts the sample API.
    expect(result.err).not.toContain("sample API listening");
  });
});

describe("reconcile: a failure of the API is a failed job (1), not unusable input (2)", () => {
  it.each([
    ["no server (connection refused)", () => ["--base-url", "http://127.0.0.1:9", "--max-attempts", "1", "--issuer", "7"], "API_NETWORK_ERROR"],
    ["an issuer the API does not know", () => ["--base-url", samples.url, "--issuer", "no-such-issuer"], "API_NOT_FOUND"],
  ])("%s", async (_what, source, code) => {
    const text = await run(["reconcile", ...source(), join(GOLDEN, "7")]);
    expect(text.code).toBe(1);
    expect(text.err).toMatch(new RegExp(`^ocf-sync reconcile: .*\\[${code}\\]$`, "m"));
    const json = await run(["reconcile", ...source(), join(GOLDEN, "7"), "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ agree: false, error: { code } });
  });

  it("a package it cannot use is still 2", async () => {
    const result = await run(["reconcile", "--base-url", samples.url, "--issuer", "7", join(dir, "no-such-package")]);
    expect(result.code).toBe(2);
  });
});

describe("an issuer's failure line ends with its code", () => {
  it.each([
    ["export", ["export", "--out", "fail-export"]],
    ["pull", ["pull"]],
    ["sync", ["sync", "--out", "fail-sync", "--state", "fail-sync.json"]],
  ])("%s, with a hint when no server answers", async (_what, [command = "", ...rest]) => {
    const result = await run([command, "--base-url", "http://127.0.0.1:9", "--max-attempts", "1", "--issuer", "7", "--log", "plain", ...rest]);
    // No server answered: a failure of the API, not of the data, so "retry it".
    expect(result.code).toBe(75);
    expect(result.err).toMatch(/^error: issuer "7" (failed|failed, its previous package and state are kept): GET .*; check --base-url \(or OCF_SYNC_BASE_URL\) and that the server is running \[API_NETWORK_ERROR\]$/m);
  });
});

describe("an issuer's failure in a --json document carries the hint of its log line", () => {
  it.each([
    ["export", ["export", "--out", "json-fail-export"]],
    ["sync", ["sync", "--out", "json-fail-sync", "--state", "json-fail-sync.json"]],
  ])("%s", async (_what, [command = "", ...rest]) => {
    const result = await run([command, "--base-url", "http://127.0.0.1:9", "--max-attempts", "1", "--issuer", "7", "--log", "plain", "--json", ...rest]);
    expect(result.code).toBe(75);
    const document = JSON.parse(result.out) as { issuers: { issuerId: string; status: string; error?: { code: string; message: string; hint?: string } }[] };
    expect(document.issuers).toEqual([
      {
        issuerId: "7",
        status: "failed",
        retry: true,
        package: null,
        counts: null,
        error: { code: "API_NETWORK_ERROR", message: expect.stringMatching(/^GET /), hint: "check --base-url (or OCF_SYNC_BASE_URL) and that the server is running" },
      },
    ]);
  });

  it("has no hint where none helps", async () => {
    // An issuer the service does not know: a 404 with nothing a hint could add.
    const result = await run(["export", "--base-url", samples.url, "--issuer", "no-such-issuer", "--out", "json-404", "--json"]);
    expect(result.code).toBe(1);
    const [failed] = (JSON.parse(result.out) as { issuers: { error: Record<string, unknown> }[] }).issuers;
    expect(failed?.error).toEqual({ code: expect.any(String), message: expect.any(String) });
  });
});

describe("every usage error of a command says where its help is, once", () => {
  const help = (command: string): string => `Run 'ocf-sync ${command} --help' for the options.`;
  it.each([
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7"], "--out DIR is required"],
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--on-invalid", "quarantin"], '--on-invalid takes fail or quarantine, got "quarantin"'],
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--concurrency", "0"], "--concurrency must be between 1 and 64, got 0"],
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--shard", "5/4"], "--shard takes K/N"],
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--deadline", "5"], "--deadline takes a duration"],
    [["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--validate", "x"], "--validate takes auto, always or never"],
    [["pull", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--log", "jsn"], "--log takes auto, plain or json"],
    [["reconcile", "--source", "x.ndjson", "pkg", "--tolerance", "abc"], "--tolerance must be a non-negative decimal"],
    [["validate", "pkg", "--reader", "nope"], '--reader must be documents or same-security, got "nope"'],
    [["sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--state", "s.json", "--overlap", "5x"], "--overlap takes whole seconds"],
    [["reconcile", "pkg"], "give exactly one of"],
    [["export", "--bogus"], "Unknown option '--bogus'"],
  ])("%j", async (argv, message) => {
    const command = argv[0] ?? "";
    const text = await run(argv);
    expect(text.code).toBe(2);
    expect(text.err).toContain(`ocf-sync ${command}: ${message}`);
    expect(text.err.endsWith(`\n${help(command)}\n`)).toBe(true);
    expect(text.err.split(help(command)).length).toBe(2);
  });

  it("the --json document and the --log json line say the same", async () => {
    const argv = ["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--on-invalid", "nah", "--json", "--log", "json"];
    const result = await run(argv);
    const document = JSON.parse(result.out) as { error: { message: string } };
    const line = JSON.parse(result.err) as { msg: string; code: string };
    expect(document.error.message).toBe(`--on-invalid takes fail or quarantine, got "nah"\n${help("export")}`);
    expect(line).toMatchObject({ msg: `ocf-sync export: ${document.error.message}`, code: "USAGE_ERROR" });
  });

  it("an argument with a code of its own (a path) is left without it", async () => {
    const result = await run(["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "/proc", "--log", "plain"]);
    expect(result.err).not.toContain("--help");
  });
});

describe("--log before the command", () => {
  it.each([[["--log", "json"]], [["--log=json"]]])("%j export ... is read as export ... --log json", async (globals) => {
    const result = await run([...globals, "export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "o", "--concurrency", "0"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.err)).toMatchObject({ level: "error", code: "USAGE_ERROR", msg: expect.stringContaining("--concurrency must be between 1 and 64") as unknown });
  });

  it("runs the job with it, its log lines JSON", async () => {
    const result = await run(["--log", "json", "pull", "--base-url", samples.url, "--issuer", "7", "--out", "before-command.ndjson"]);
    expect(result.code).toBe(0);
    for (const line of result.err.trim().split("\n")) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it("another option before the command is told to go after it", async () => {
    const result = await run(["--json", "export"]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('ocf-sync: unknown command "--json": options go after the command (ocf-sync <command> [options])');
  });
});

describe("an invalid base URL names where it came from", () => {
  it.each([
    ["http://127.0.0.1:4010/v1alpha1", 'OCF_SYNC_BASE_URL (from the environment) "http://127.0.0.1:4010/v1alpha1" is invalid'],
    ["ftp://example.com", 'OCF_SYNC_BASE_URL (from the environment) must be an http(s) URL, got "ftp://example.com"'],
  ])("OCF_SYNC_BASE_URL=%s", async (value, message) => {
    const result = await run(["pull", "--issuer", "7"], { OCF_SYNC_BASE_URL: value });
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync pull: ${message}`);
    const flag = await run(["pull", "--issuer", "7", "--base-url", value]);
    expect(flag.err).toContain("ocf-sync pull: --base-url ");
  });
});

describe("--issuers-file: only a whole line is a comment, as the help says", () => {
  it("a # after an id is part of the id", async () => {
    await writeFile(join(dir, "issuers.txt"), "# the batch\n7\n  # indented comment\nacme-robotics  # ours\n\n");
    const result = await run(["export", "--base-url", "http://127.0.0.1:9", "--issuers-file", "issuers.txt", "--out", "o", "--on-invalid", "nah", "--json"]);
    const document = JSON.parse(result.out) as { issuers: { issuerId: string }[] };
    expect(document.issuers.map((i) => i.issuerId)).toEqual(["7", "acme-robotics  # ours"]);
  });

  it.each(["export", "pull", "sync"])("%s --help says so", async (command) => {
    const help = (await run([command, "--help"])).out.replace(/\s+/g, " ");
    expect(help).toContain("--issuers-file FILE one issuer id per line; blank lines and lines starting with # are skipped (a # after an id is part of the id, which may hold one)");
  });
});

describe("sync() names a path option that is missing or not a path", () => {
  // Paths in the test's folder: without the check, sync would start writing where they point (and,
  // with no outDir, its lock would land in the working folder).
  it.each([
    // An option sync does not know is named first (a misspelt one was ignored, then stateFile was missing)
    ["statePath for stateFile", () => ({ statePath: join(dir, "lib-state.json"), outDir: join(dir, "lib-out") }), 'unknown option "statePath"'],
    ["no outDir", () => ({ stateFile: join(dir, "lib-state.json") }), "options.outDir must be a path (a non-empty string), got none"],
    ["an empty stateFile", () => ({ stateFile: "", outDir: join(dir, "lib-out") }), 'options.stateFile must be a path (a non-empty string), got ""'],
  ])("%s", async (_what, options, message) => {
    const client = createApiClient({ baseUrl: "http://127.0.0.1:9" });
    try {
      await expect(sync(client, ["7"], options() as unknown as SyncOptions).next()).rejects.toThrow(new TypeError(`sync: ${message}`));
    } finally {
      await client.close();
    }
  });
});

describe("validate --help and the report agree on itemId", () => {
  it("says itemId is left out of a problem of no one object", async () => {
    const help = (await run(["validate", "--help"])).out.replace(/\s+/g, " ");
    expect(help).toContain('where "itemId" (the object\'s id) is left out of a problem that concerns no one object');
  });
});

describe("cosmetics", () => {
  it("sync: a new package of 1 object, not 1 objects", () => {
    const result = { ok: true, issuerId: "x", pass: "full", reason: "first-run", pulled: 1, changes: summarizeChangeSet({ created: [{ objectType: "STAKEHOLDER", id: "s" }], changed: [], removed: [], unchanged: 0 }) };
    expect(changeSetSummary([result as unknown as IssuerSyncResult])).toContain("x: a new package of 1 object\n".trim());
    expect(changeSetSummary([result as unknown as IssuerSyncResult])).not.toContain("1 objects");
  });

  it("sync counts a new package's objects as validate does: the issuer (in the manifest) apart", () => {
    const created = [{ objectType: "ISSUER", id: "x" }, { objectType: "STAKEHOLDER", id: "s" }, { objectType: "STOCK_CLASS", id: "c" }];
    const result = { ok: true, issuerId: "x", pass: "full", reason: "first-run", pulled: 1, changes: summarizeChangeSet({ created, changed: [], removed: [], unchanged: 0 }) };
    expect(changeSetSummary([result as unknown as IssuerSyncResult])).toContain("x: a new package of the issuer and 2 objects");
  });

  it("pull: a failed issuer's counts are -, as in export's table", async () => {
    const result = await run(["pull", "--base-url", samples.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", "cosmetic.ndjson", "--log", "plain"]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^no-such-issuer +- +- +- +- +FAILED API_NOT_FOUND$/m);
    expect(result.err).toMatch(/^7 +\d+ +\d+ +0 +\d+ +ok/m);
  });

  it("sync: a state it cannot read says how to start afresh", async () => {
    await writeFile(join(dir, "broken-state.json"), "{ not json");
    const result = await run(["sync", "--base-url", samples.url, "--issuer", "7", "--out", "broken-out", "--state", "broken-state.json", "--log", "plain"]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/is not JSON .*To start afresh, move the state file away or delete it: the next sync is then a full pass of every issuer \[SYNC_STATE_INVALID\]\n$/s);
    // Once: the library's error says it, and the command line does not add it again
    expect(result.err.split("To start afresh").length - 1).toBe(1);
  });
});

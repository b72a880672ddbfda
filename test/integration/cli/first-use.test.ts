/**
 * What a first-time user meets: the mistakes people make on their first runs (a misspelt command or
 * option, a negative number, `help <command>`), answered with a line that says what is wrong and how
 * to fix it, the right exit status, and never a stack trace.
 */
import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { CLI_FROM_SOURCES, PROJECT_ROOT, runCliProcess } from "../../helpers/cli-process.js";

const STACK = /\n\s+at /;

let dir: string;
let samples: SampleServer;
let guarded: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-first-use-"));
  samples = await startSampleServer({ port: 0 });
  guarded = await startSampleServer({ port: 0, token: "the-right-token-5c1e" });
});
afterAll(async () => {
  await samples.close();
  await guarded.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; err: string; out: string }> {
  return runWith({}, ...argv);
}

async function runWith(env: Record<string, string>, ...argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const io = captureIo(dir, env);
  const code = await runCli(argv, io);
  expect(io.stderr.text).not.toMatch(STACK);
  return { code, err: io.stderr.text, out: io.stdout.text };
}

describe("misspellings get a suggestion", () => {
  it.each([
    ["exprot", "export"],
    ["valdate", "validate"],
    ["--sync", "sync"],
    ["serve-sample", "serve-samples"],
  ])("command %s: did you mean %s?", async (typed, meant) => {
    const result = await run(typed);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`unknown command ${JSON.stringify(typed)}; did you mean ${meant}?`);
    expect(result.err).toContain("Commands: demo, export, pull, reconcile, serve-samples, summarize, sync, validate.");
    expect(result.out).toBe("");
  });

  it("a command that resembles none gets the list of commands and no guess", async () => {
    const result = await run("frobnicate");
    expect(result.code).toBe(2);
    expect(result.err).not.toContain("did you mean");
    expect(result.err).toContain("Commands: demo, export");
  });

  it.each([
    [["export", "--isuer", "7"], "--isuer", "--issuer"],
    [["export", "--concurency", "3"], "--concurency", "--concurrency"],
    [["sync", "--ful"], "--ful", "--full"],
    [["validate", "out/7", "--jsn"], "--jsn", "--json"],
    [["reconcile", "--agianst", "x", "out/7"], "--agianst", "--against"],
    [["pull", "--base-url=http://127.0.0.1:1", "--modified-afer", "2024-01-01"], "--modified-afer", "--modified-after"],
    [["serve-samples", "--prot", "0"], "--prot", "--port"],
  ])("option in %j: did you mean?", async (argv, typed, meant) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`Unknown option '${typed}'; did you mean ${meant}?`);
    expect(result.err).toContain(`Run 'ocf-sync ${argv[0] ?? ""} --help' for the options.`);
  });

  it.each([
    [["validate", "--issuer", "7", "out/7"], "--issuer", "export, pull, reconcile, sync"],
    [["export", "--port", "4010"], "--port", "serve-samples"],
    [["pull", "--state", "state.json"], "--state", "sync"],
    [["sync", "--source", "7.ndjson"], "--source", "reconcile"],
  ])("an option of another command in %j says which commands take it", async (argv, option, owners) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `ocf-sync ${argv[0] ?? ""}: Unknown option '${option}': ${option} is an option of ${owners}; not of ${argv[0] ?? ""}\nRun 'ocf-sync ${argv[0] ?? ""} --help' for the options.\n`,
    );
  });

  it.each([
    [["reconcile", "--source", "7.ndjson", "--package", "out/7"], "--package", "the package is given without an option name, e.g. ocf-sync reconcile --source FILE PACKAGE"],
    [["validate", "--path", "out/7"], "--path", "the package is given without an option name: ocf-sync validate PATH"],
  ])("a name given to the package in %j says the package takes none", async (argv, option, hint) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.err).toBe(`ocf-sync ${argv[0] ?? ""}: Unknown option '${option}': ${hint}\nRun 'ocf-sync ${argv[0] ?? ""} --help' for the options.\n`);
  });

  it("an option that resembles none gets no guess", async () => {
    const result = await run("export", "--frobnicate");
    expect(result.code).toBe(2);
    expect(result.err).toContain("Unknown option '--frobnicate'\n");
  });
});

describe("a negative number", () => {
  it.each([
    ["export", "--timeout-ms"],
    ["sync", "--full-every"],
    ["reconcile", "--tolerance"],
  ])("%s %s -5 says that no option takes one, not node's advice to write --x=-5", async (command, option) => {
    const result = await run(command, option, "-5");
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync ${command}: ${option} needs a value; a value that starts with "-" (a negative number) is not one any option takes`);
    expect(result.err).not.toContain("-XYZ");
  });
});

describe("an option whose value is forgotten", () => {
  it("before another option (as --token $UNSET gives) says so, naming the option that came next", async () => {
    const result = await run("pull", "--token", "--issuer", "7");
    expect(result.code).toBe(2);
    expect(result.err).toContain("ocf-sync pull: --token needs a value, but the next argument is the option --issuer\n");
  });

  it("never prints the next argument when it is not an option's name", async () => {
    const result = await run("pull", "--token", "-Secret=Value");
    expect(result.code).toBe(2);
    expect(result.err).toContain("--token needs a value, but the next argument is an option\n");
    expect(result.err).not.toContain("Secret");
  });
});

describe("no command at all", () => {
  it("is a usage error like any other: a short usage on standard error, status 2, nothing on standard output", async () => {
    const result = await runCliProcess([], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "ocf-sync: no command given\nUsage: ocf-sync <command> [options]\nCommands: demo, export, pull, reconcile, serve-samples, summarize, sync, validate. Run 'ocf-sync --help' for usage.\n",
    );
    // The whole help is --help's: on standard output, status 0.
    const help = await run("--help");
    expect(help.code).toBe(0);
    expect(help.err).toBe("");
    expect(help.out).toContain("Usage: ocf-sync <command> [options]\n\nCommands:\n");
  });
});

describe("help <command>", () => {
  it("prints the command's help, as <command> --help does", async () => {
    const viaHelp = await run("help", "validate");
    const viaFlag = await run("validate", "--help");
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.out).toBe(viaFlag.out);
    expect(viaHelp.out).toContain("Usage: ocf-sync validate PATH");
  });

  it("of an unknown command is the unknown command, with a guess", async () => {
    const result = await run("help", "exprot");
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown command "exprot"; did you mean export?');
  });

  it("alone is the program's help, which names it", async () => {
    const result = await run("help");
    expect(result.code).toBe(0);
    expect(result.out).toContain("'ocf-sync help <command>'");
    expect(result.out).toContain("'ocf-sync --version' for the version");
  });
});

describe("a connection that cannot work says what to change", () => {
  it("https:// to a server that speaks plain HTTP: one line that says to use http://, with no retry", async () => {
    const https = samples.url.replace(/^http:/, "https:");
    const before = samples.stats().requests;
    const result = await run("pull", "--base-url", https, "--issuer", "7", "--out", join(dir, "tls.ndjson"), "--log", "plain");
    expect(result.code).toBe(1);
    expect(result.err).toContain("could not start TLS: the server answered in plain HTTP (ERR_SSL_WRONG_VERSION_NUMBER) after 1 attempt; for such a server the base URL starts with http://, not https://");
    // OpenSSL's own text (and its line break) is not what the user reads.
    expect(result.err).not.toContain("ssl3_get_record");
    expect(samples.stats().requests).toBe(before);
  });

  it("a base URL with /v1alpha1 in it is a usage error naming the root to give instead", async () => {
    const result = await run("export", "--base-url", `${samples.url}/v1alpha1`, "--issuer", "7", "--out", join(dir, "out"));
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `ocf-sync export: --base-url ${JSON.stringify(`${samples.url}/v1alpha1`)} is invalid: requests already start with /v1alpha1/: give the API's root, ${samples.url} [CLIENT_CONFIG_INVALID]\n`,
    );
  });

  it.each([
    ["an unknown issuer", (url: string) => url, "no-such-issuer"],
    ["a base URL with a wrong path", (url: string) => `${url}/api`, "7"],
  ])("a 404 for %s says to check the issuer id and the base URL", async (_what, baseUrl, issuer) => {
    const result = await run("export", "--base-url", baseUrl(samples.url), "--issuer", issuer, "--out", join(dir, "out"), "--log", "plain");
    expect(result.code).toBe(1);
    expect(result.err).toContain(`failed with 404 NOT_FOUND: Resource not found after 1 attempt; check the issuer id, and that the base URL ${baseUrl(samples.url)} is the API's root`);
  });

  it("a server that wants a token, given none, says which flags and variables give one", async () => {
    const result = await run("pull", "--base-url", guarded.url, "--issuer", "7", "--out", join(dir, "x.ndjson"));
    expect(result.code).toBe(1);
    expect(result.err).toContain("no credentials were given");
    expect(result.err).toContain("--token or OCF_SYNC_TOKEN, or --token-url, --client-id and --client-secret");
  });

  it("a rejected token says so, and is never printed", async () => {
    const result = await runWith({ OCF_SYNC_TOKEN: "a-wrong-token-0b7d" }, "pull", "--base-url", guarded.url, "--issuer", "7", "--out", join(dir, "x.ndjson"));
    expect(result.code).toBe(1);
    expect(result.err).toContain("the configured bearer token was rejected");
    expect(result.err + result.out).not.toContain("a-wrong-token-0b7d");
  });
});

describe("demo and serve-samples, like every other command", () => {
  it.each(["demo", "export", "pull", "reconcile", "serve-samples", "summarize", "sync", "validate"])("%s --help states its exit statuses", async (command) => {
    const result = await run(command, "--help");
    expect(result.out).toMatch(/\nExit status: [\s\S]*130 or 143/);
  });

  it("demo --out a file is a usage error naming --out, before the sample API starts", async () => {
    await writeFile(join(dir, "a-file"), "not a folder\n");
    const result = await run("demo", "--out", "a-file");
    expect(result.code).toBe(2);
    expect(result.err).toBe(`ocf-sync demo: --out: cannot create the folder ${join(dir, "a-file")}: it exists and is not a folder [FILE_SYSTEM_ERROR]\n`);
  });
});

describe("credentials given the wrong way name the flag or variable to change", () => {
  const pull = ["pull", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "x.ndjson"];

  it("a token in the environment beside OAuth2 flags says the token came from the environment", async () => {
    const result = await runWith(
      { OCF_SYNC_TOKEN: "env-token-4d1f" },
      ...pull, "--token-url", "http://127.0.0.1:9/t", "--client-id", "c", "--client-secret", "s-secret-77aa",
    );
    expect(result.code).toBe(2);
    expect(result.err).toContain("not both: got OCF_SYNC_TOKEN (from the environment) and --token-url, --client-id, --client-secret");
    expect(result.err).not.toContain("env-token-4d1f");
    expect(result.err).not.toContain("s-secret-77aa");
  });

  it("OAuth2 with a part missing says which part, and where the others came from", async () => {
    const result = await runWith({ OCF_SYNC_CLIENT_SECRET: "s-secret-77aa" }, ...pull, "--client-id", "c");
    expect(result.code).toBe(2);
    expect(result.err).toContain("--token-url missing, given --client-id, OCF_SYNC_CLIENT_SECRET (from the environment)");
    expect(result.err).not.toContain("s-secret-77aa");
  });

  it("a secret in the token URL's query is not shown, where the URL is", async () => {
    const tokenUrl = "http://127.0.0.1:9/t?client_secret=url-secret-61fe&api_key=url-key-0b7d";
    for (const given of [["--token-url", tokenUrl], [`--token-url=${tokenUrl}`]]) {
      const result = await run(...pull, ...given, "--client-id", "c", "--client-secret", "s-secret-77aa", "--max-attempts", "1", "--log", "json");
      expect(result.code).toBe(1);
      expect(result.err).toContain("OAuth2 token request to http://127.0.0.1:9/t?client_secret=[REDACTED]&api_key=[REDACTED] failed");
      for (const secret of ["url-secret-61fe", "url-key-0b7d", "s-secret-77aa"]) expect(result.err).not.toContain(secret);
    }
  });

  it("--scope without OAuth2 is refused instead of ignored", async () => {
    const result = await run(...pull, "--token", "t-0c3e", "--scope", "read_issuer_securities");
    expect(result.code).toBe(2);
    expect(result.err).toContain("--scope is for OAuth2 client credentials");
  });
});

describe("an --issuers-file that names no issuer", () => {
  it("says so, rather than asking for an issuer the user believes they gave", async () => {
    await writeFile(join(dir, "issuers.txt"), "# the issuers of the migration\n\n");
    const result = await run("export", "--base-url", "http://127.0.0.1:9", "--issuers-file", "issuers.txt", "--out", "out");
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `ocf-sync export: --issuers-file ${join(dir, "issuers.txt")} names no issuer: it needs one issuer id per line (blank lines and lines starting with # are skipped)\nRun 'ocf-sync export --help' for the options.\n`,
    );
  });
});

describe("paths typed relative are printed as resolved, by every command", () => {
  it("in a report: reconcile names both packages by their absolute paths, in text and in --json", async () => {
    await cp(join(PROJECT_ROOT, "samples/ocf/7"), join(dir, "pkg-7"), { recursive: true });
    const text = await run("reconcile", "pkg-7", "--against", "./pkg-7");
    expect(text.code).toBe(0);
    expect(text.out.split("\n")[0]).toBe(`OCF against OCF for issuer "7" (OCF issuer id "issuer-7"): first ${join(dir, "pkg-7")} vs second ${join(dir, "pkg-7")}; vested as of 2025-06-30; tolerance 0`);
    const json = await run("reconcile", "pkg-7", "--against", "./pkg-7", "--json");
    const { reports } = JSON.parse(json.out) as { reports: { labels: { expected: string; actual: string } }[] };
    expect(reports[0]?.labels).toEqual({ expected: join(dir, "pkg-7"), actual: join(dir, "pkg-7") });
  });

  it.each([
    [["--issuers-file", "missing-issuers.txt"], "--issuers-file: cannot read {dir}/missing-issuers.txt: it does not exist (or a folder on its way does not) (ENOENT) [FILE_SYSTEM_ERROR]"],
    [["--issuer", "7", "--stakeholders", "missing-people.json"], "--stakeholders: cannot read {dir}/missing-people.json: it does not exist (or a folder on its way does not) (ENOENT) [FILE_SYSTEM_ERROR]"],
    [["--issuer", "7", "--issuer-profile", "./not-json.json"], "--issuer-profile {dir}/not-json.json is not JSON: "],
  ])("in a message: %j names the file by its absolute path", async (args, message) => {
    await writeFile(join(dir, "not-json.json"), "{");
    const result = await run("sync", "--base-url", "http://127.0.0.1:9", "--out", "out", "--state", "state.json", ...args);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync sync: ${message.replace("{dir}", dir)}`);
  });
});

describe("sync --state a folder", () => {
  it("is a usage error (2) that says to give a file, before any request", async () => {
    const result = await run("sync", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "synced", "--state", "synced");
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `ocf-sync sync: --state: ${join(dir, "synced")} is a folder; give the file the sync keeps its state in, such as ${join(dir, "synced", "state.json")} [FILE_SYSTEM_ERROR]\n`,
    );
  });
});

describe("pull to standard output", () => {
  it("writes records only there, and its summary to standard error, as its help and the README say", async () => {
    const result = await run("pull", "--base-url", samples.url, "--issuer", "7", "--log", "plain");
    expect(result.code).toBe(0);
    const lines = result.out.trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    for (const line of lines) expect((JSON.parse(line) as { issuerId: string }).issuerId).toBe("7");
    expect(result.err).toContain("1 of 1 issuers pulled, 7 records");
    const help = await run("pull", "--help");
    expect(help.out).toContain("the summary table, progress and logs go to\nstandard error, with --out too.");
  });
});

describe("export without --zip after an export with it", () => {
  it("removes the earlier zip, which would hold another package than the folder", async () => {
    const out = join(dir, "zip-then-none");
    const first = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--zip", "--log", "plain");
    expect(first.code).toBe(0);
    expect(await readdir(out)).toContain("7.ocf.zip");
    const second = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
    expect(second.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(["7", "7.report.json"]);
  });
});

describe("export --help", () => {
  it("names every field an --issuer-profile takes", async () => {
    const help = (await run("export", "--help")).out.replace(/\s+/g, " ");
    for (const field of ["legalName", "formationDate", "countryOfFormation", "dba", "countrySubdivisionOfFormation", "shareClasses", "stockPlans"]) {
      expect(help).toContain(`"${field}"`);
    }
  });
});

describe("serve-samples --port in use", () => {
  it("is a usage error (2) that says to pick another port, not node's 'listen EADDRINUSE'", async () => {
    const port = new URL(samples.url).port;
    const result = await run("serve-samples", "--port", port);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `ocf-sync serve-samples: --port ${port}: 127.0.0.1:${port} is in use (another serve-samples?); pick another port, or --port 0 for a free one [EADDRINUSE]\n`,
    );
  });
});

describe("reconcile options its mode does not use", () => {
  it.each([
    [["out/7", "--against", "out/7", "--issuer", "7"], "--issuer goes with --source or --base-url; with --against, each package names its issuer"],
    [["out/7", "--against", "out/7", "--token", "t-55e0"], "--token: only with --base-url (or OCF_SYNC_BASE_URL)"],
    [["--source", "7.ndjson", "out/7", "--timeout-ms", "5000", "--max-attempts", "2"], "--max-attempts, --timeout-ms: only with --base-url (or OCF_SYNC_BASE_URL)"],
  ])("%j is refused, not ignored", async (argv, message) => {
    const result = await run("reconcile", ...argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`ocf-sync reconcile: ${message}\n`);
  });
});

describe("a reader of standard output that goes away (ocf-sync ... | head)", () => {
  it.each([
    ["validate", () => ["validate", join(PROJECT_ROOT, "samples/ocf/144361"), "--json"]],
    ["pull to standard output", () => ["pull", "--base-url", samples.url, "--issuer", "144361", "--log", "plain"]],
  ])("%s ends with status 141, as SIGPIPE ends other tools, and no stack trace", async (_what, args) => {
    const child = spawn(process.execPath, [...CLI_FROM_SOURCES, ...args()], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    // Closed before the process has run a line: its first write to standard output meets no reader.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on("close", (status) => done(status)));
    expect(code).toBe(141);
    expect(stderr).not.toMatch(STACK);
    expect(stderr).not.toContain("EPIPE");
  });
});

describe("a reader of standard error that goes away (ocf-sync ... 2>&1 >/dev/null | head)", () => {
  it("does not stop the job: it finishes silently, its output written and its status its own", async () => {
    const out = join(dir, "stderr-gone.ndjson");
    const child = spawn(process.execPath, [...CLI_FROM_SOURCES, "pull", "--base-url", samples.url, "--issuer", "144361", "--out", out, "--log", "plain"], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    // Closed before the process has run a line: every line it writes to standard error meets no reader.
    child.stderr.destroy();
    const code = await new Promise<number | null>((done) => child.on("close", (status) => done(status)));
    expect(code).toBe(0);
    expect((await readFile(out, "utf8")).trimEnd().split("\n")).toHaveLength(150);
  });
});

describe("the connection help", () => {
  it.each(["export", "pull", "reconcile", "sync"])("of %s names the variable of every connection flag that has one", async (command) => {
    const help = (await run(command, "--help")).out;
    for (const variable of ["OCF_SYNC_BASE_URL", "OCF_SYNC_TOKEN", "OCF_SYNC_TOKEN_URL", "OCF_SYNC_CLIENT_ID", "OCF_SYNC_CLIENT_SECRET"]) {
      expect(help).toContain(variable);
    }
  });
});

describe("a base URL with credentials in it", () => {
  it("is refused in the words of the command line (--base-url), without echoing the credentials", async () => {
    const result = await run("pull", "--base-url", "http://user:hunter2-pw@127.0.0.1:9", "--issuer", "7");
    expect(result.code).toBe(2);
    expect(result.err).toContain('ocf-sync pull: --base-url "http://…@127.0.0.1:9" is invalid: credentials in the URL are not supported');
    expect(result.err).not.toContain("hunter2-pw");
  });
});

/**
 * Smaller input gaps (issue 25, item 11): values that used to be taken, or to fail later as something
 * else, are usage errors (exit 2, one line naming the option) before any request. The real CLI in a
 * child process, real files, a real loopback server that counts the requests it gets.
 */
import { execFileSync, spawn } from "node:child_process";
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { runCliProcess } from "../../helpers/cli-process.js";

const STACK = /\n\s+at /;

let dir: string;
let samples: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-input-gaps-"));
  samples = await startSampleServer({ port: 0 });
});
afterAll(async () => {
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

/** A usage error: exit 2, one line on standard error (and the pointer to --help), no stack, nothing on standard output, no request sent. */
async function expectUsage(args: readonly string[], line: RegExp, env: Record<string, string> = {}): Promise<string> {
  const before = samples.stats();
  const result = await runCliProcess(args, { cwd: dir, env });
  expect(result.stderr).toMatch(line);
  expect(result.code).toBe(2);
  // One line saying what is wrong, then at most the pointer to the command's help.
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines[0]).toMatch(line);
  expect(lines.slice(1).every((l) => /^Run 'ocf-sync [a-z-]+ --help' for the options\.$/.test(l))).toBe(true);
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(result.stderr).not.toMatch(STACK);
  expect(result.stdout).toBe("");
  const after = samples.stats();
  expect([after.requests, after.tokensIssued]).toEqual([before.requests, before.tokensIssued]);
  return result.stderr;
}

describe("--validate and --no-validate together", () => {
  for (const command of ["export", "sync"]) {
    it(`${command}: --validate always --no-validate is refused, naming both`, async () => {
      const extra = command === "sync" ? ["--state", join(dir, "state.json")] : [];
      for (const value of ["always", "auto"]) {
        await expectUsage(
          [command, "--base-url", samples.url, "--issuer", "7", "--out", join(dir, `out-${command}`), ...extra, "--validate", value, "--no-validate"],
          new RegExp(`--no-validate contradicts --validate ${value}`),
        );
      }
    });
  }
});

describe("an empty --modified-after/--modified-before range", () => {
  it("pull refuses a start after the end, naming both values, before any request", async () => {
    const cases: [string, string][] = [
      ["2024-07-31", "2024-07-30"],
      ["2024-07-30T09:31:58Z", "2024-07-30T09:31:57Z"],
      // Fractions compared as instants, not as text: .5 is after .123456789.
      ["2024-07-30T09:31:57.5Z", "2024-07-30T09:31:57.123456789Z"],
      ["2024-07-30T00:00:00.000000001Z", "2024-07-30"],
    ];
    for (const [after, before] of cases) {
      await expectUsage(
        ["pull", "--base-url", samples.url, "--issuer", "7", "--modified-after", after, "--modified-before", before],
        new RegExp(`--modified-after ${after.replace(/\./g, "\\.")} is after --modified-before ${before.replace(/\./g, "\\.")}`),
      );
    }
  });

  it("pull takes a range of one instant (both bounds are inclusive) and a start before the end", async () => {
    for (const [after, before] of [["2024-07-30", "2024-07-30T00:00:00Z"], ["2024-07-30T09:31:57.123Z", "2024-07-30T09:31:57.5Z"]] as const) {
      const result = await runCliProcess(["pull", "--base-url", samples.url, "--issuer", "7", "--modified-after", after, "--modified-before", before], { cwd: dir });
      expect(result.stderr).toMatch(/1 of 1 issuers pulled/);
      expect(result.code).toBe(0);
    }
  });
});

describe("a secret holding a control character", () => {
  const SECRET = "s3cr3t-VALUE";
  const base = ["--base-url", "", "--issuer", "7"];
  const cases: { name: string; args: string[]; env: Record<string, string>; says: RegExp }[] = [
    { name: "--token with a newline", args: ["--token", `${SECRET}\n`], env: {}, says: /^ocf-sync \w+: --token holds a newline \(U\+000A\) at character 13 of 13;/ },
    { name: "OCF_SYNC_TOKEN with a carriage return", args: [], env: { OCF_SYNC_TOKEN: `${SECRET}\rx` }, says: /OCF_SYNC_TOKEN \(from the environment\) holds a carriage return \(U\+000D\)/ },
    { name: "OCF_SYNC_TOKEN with an escape", args: [], env: { OCF_SYNC_TOKEN: `\u001b${SECRET}` }, says: /OCF_SYNC_TOKEN \(from the environment\) holds a control character \(U\+001B\) at character 1/ },
    {
      name: "--client-secret with a tab",
      args: ["--token-url", "", "--client-id", "ocf-sync", "--client-secret", `${SECRET}\tz`],
      env: {},
      says: /--client-secret holds a tab \(U\+0009\)/,
    },
    {
      name: "OCF_SYNC_CLIENT_SECRET with a DEL",
      args: ["--token-url", "", "--client-id", "ocf-sync"],
      env: { OCF_SYNC_CLIENT_SECRET: `${SECRET}\u007f` },
      says: /OCF_SYNC_CLIENT_SECRET \(from the environment\) holds a control character \(U\+007F\)/,
    },
  ];
  for (const command of ["pull", "export", "sync"]) {
    it(`${command}: a usage error before any request, naming the option or variable and never the value`, async () => {
      const extra = command === "pull" ? [] : ["--out", join(dir, `secret-${command}`), ...(command === "sync" ? ["--state", join(dir, "secret-state.json")] : [])];
      for (const { args, env, says } of cases) {
        const fill = (list: string[]): string[] => list.map((a, i) => (a === "" && list[i - 1] === "--base-url" ? samples.url : a === "" ? `${samples.url}/oauth/token` : a));
        const stderr = await expectUsage([command, ...fill(base), ...fill(args), ...extra], says, env);
        expect(stderr).not.toContain(SECRET);
        expect(stderr).toMatch(/the value is not printed/);
      }
    });
  }

  it("a token of printable characters is still sent (the sample server takes any bearer token)", async () => {
    const result = await runCliProcess(["pull", "--base-url", samples.url, "--issuer", "7"], { cwd: dir, env: { OCF_SYNC_TOKEN: "abc.DEF-123_~+/=" } });
    expect(result.code).toBe(0);
  });
});

describe("option files that are not UTF-8", () => {
  const latin1 = (text: string): Buffer => Buffer.from(text, "latin1");
  const cases: { option: string; file: string; bytes: Buffer; offset: number; byte: string }[] = [
    // "7\n" then "école" in Latin-1: the é (0xE9) is byte 2 and starts no valid sequence with "c".
    { option: "issuers-file", file: "issuers-latin1.txt", bytes: latin1("7\n\u00e9cole\n"), offset: 2, byte: "E9" },
    // A UTF-16 file (with its byte order mark): 0xFF is never UTF-8.
    { option: "issuers-file", file: "issuers-utf16.txt", bytes: Buffer.from("\ufeff7\n", "utf16le"), offset: 0, byte: "FF" },
    { option: "issuer-profile", file: "profile-latin1.json", bytes: latin1('{"*": {"legalName": "Soci\u00e9t\u00e9 SA"}}'), offset: 25, byte: "E9" },
    // A surrogate encoded as UTF-8 (CESU-8), after a valid "é".
    { option: "stakeholders", file: "stakeholders-cesu.json", bytes: Buffer.concat([Buffer.from('{"s1": {"legalName": "\u00e9', "utf8"), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]), offset: 24, byte: "ED" },
    // A sequence cut off by the end of the file.
    { option: "stakeholders", file: "stakeholders-cut.json", bytes: Buffer.concat([Buffer.from("{}", "utf8"), Buffer.from([0xe2, 0x82])]), offset: 2, byte: "E2" },
  ];
  for (const command of ["export", "sync"]) {
    it(`${command}: a usage error naming the option, the file and the offset of the first bad byte, before any request`, async () => {
      const extra = ["--out", join(dir, `utf8-${command}`), ...(command === "sync" ? ["--state", join(dir, "utf8-state.json")] : [])];
      for (const { option, file, bytes, offset, byte } of cases) {
        const path = join(dir, file);
        await writeFile(path, bytes);
        const issuer = option === "issuers-file" ? [] : ["--issuer", "7"];
        await expectUsage(
          [command, "--base-url", samples.url, ...issuer, `--${option}`, path, ...extra],
          new RegExp(`--${option} ${path.replace(/[.]/g, "\\.")} is not UTF-8: byte ${offset} \\(from 0\\) is 0x${byte}; save the file as UTF-8`),
        );
      }
    });
  }

  it("pull: --issuers-file too", async () => {
    const path = join(dir, "pull-issuers.txt");
    await writeFile(path, latin1("7\nna\u00efve\n"));
    await expectUsage(["pull", "--base-url", samples.url, "--issuers-file", path], /--issuers-file .* is not UTF-8: byte 4 \(from 0\) is 0xEF/);
  });

  it("UTF-8 files, with characters past ASCII, are still read", async () => {
    const profile = join(dir, "profile-utf8.json");
    const stakeholders = join(dir, "stakeholders-utf8.json");
    await writeFile(profile, JSON.stringify({ "*": { legalName: "Société Générale Ω 😀" } }), "utf8");
    await writeFile(stakeholders, JSON.stringify({ nobody: { legalName: "Zoë Ñúñez" } }), "utf8");
    const out = join(dir, "utf8-ok");
    const result = await runCliProcess(["export", "--base-url", samples.url, "--issuer", "7", "--issuer-profile", profile, "--stakeholders", stakeholders, "--out", out], { cwd: dir });
    expect(result.stderr).not.toMatch(/not UTF-8/);
    expect(result.code).toBe(0);
  });
});

describe("serve-samples --data that cannot be served", () => {
  /** A folder of issuer files made by `make`, and what the one line must say of it. */
  const cases: { name: string; make: (folder: string) => Promise<void>; says: (folder: string) => string }[] = [
    {
      name: "a file over the size limit (sparse: no disk used)",
      make: async (folder) => {
        await writeFile(join(folder, "big.json"), "");
        await truncate(join(folder, "big.json"), 3 * 2 ** 30);
      },
      says: (folder) => `--data: ${join(folder, "big.json")} has ${3 * 2 ** 30} bytes, more than an issuer file may hold`,
    },
    { name: "a folder named *.json", make: (folder) => mkdir(join(folder, "x.json")), says: (folder) => `--data: ${join(folder, "x.json")} is not a regular file (a folder)` },
    {
      name: "a FIFO named *.json (read, it would be waited on forever)",
      make: async (folder) => {
        execFileSync("mkfifo", [join(folder, "x.json")]);
      },
      says: (folder) => `--data: ${join(folder, "x.json")} is not a regular file (a device, FIFO or socket)`,
    },
    { name: "a dangling link", make: (folder) => symlink(join(folder, "nowhere"), join(folder, "x.json")), says: (folder) => `--data: cannot read ${join(folder, "x.json")}: it does not exist` },
    { name: "a file that is not JSON", make: (folder) => writeFile(join(folder, "x.json"), "{"), says: (folder) => `--data: ${join(folder, "x.json")}: not valid JSON` },
    {
      name: "a file the server cannot serve",
      make: (folder) => writeFile(join(folder, "x.json"), JSON.stringify({ issuerId: 7 })),
      says: (folder) => `--data: ${join(folder, "x.json")}: issuerId must be a string`,
    },
  ];
  for (const [index, { name, make, says }] of cases.entries()) {
    it(`${name}: exit 2 with one line naming the file, and no server`, async () => {
      const folder = join(dir, `data-${index}`);
      await mkdir(folder);
      await make(folder);
      const result = await runCliProcess(["serve-samples", "--port", "0", "--data", folder], { cwd: dir });
      expect(result.stderr).toContain(says(folder));
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split("\n").filter((l) => !/^Run 'ocf-sync serve-samples --help'/.test(l))).toHaveLength(1);
      expect(result.stderr).not.toMatch(STACK);
      expect(result.stdout).not.toMatch(/listening/);
    });
  }
});

describe("unbounded inputs (issue 25, item 5)", () => {
  /** The inputs no option file may be, each made at `path`, and what the one line says of it. */
  const unusable: { name: string; make: (path: string) => Promise<string>; says: string }[] = [
    // Read whole, it grew until "Invalid string length" (exit 70, 1.2 GB of memory).
    { name: "/dev/zero", make: async () => "/dev/zero", says: "it is a character device, not a regular file" },
    // Read, it blocked until a signal: no writer ever comes.
    {
      name: "a FIFO",
      make: async (path) => {
        execFileSync("mkfifo", [path]);
        return path;
      },
      says: "it is a FIFO (named pipe), not a regular file",
    },
    { name: "a folder", make: async (path) => (await mkdir(path), path), says: "it is a folder, not a regular file" },
    // Sparse: no disk used; over the longest string, it was exit 70.
    {
      name: "a file over 512 MiB",
      make: async (path) => {
        await writeFile(path, "");
        await truncate(path, 600 * 2 ** 20);
        return path;
      },
      says: `it holds more than ${64 * 2 ** 20} bytes (64 MiB), the most such a file may hold`,
    },
  ];
  const options: { option: string; commands: string[] }[] = [
    { option: "issuers-file", commands: ["export", "sync", "pull"] },
    { option: "issuer-profile", commands: ["export", "sync"] },
    { option: "stakeholders", commands: ["export", "sync"] },
  ];
  for (const { option, commands } of options) {
    for (const command of commands) {
      it(`${command} --${option}: /dev/zero, a FIFO, a folder, a file over the limit are usage errors naming the option and the path, before any request`, async () => {
        for (const [index, { make, says }] of unusable.entries()) {
          const path = await make(join(dir, `unbounded-${command}-${option}-${index}`));
          const issuer = option === "issuers-file" ? [] : ["--issuer", "7"];
          const extra = command === "pull" ? [] : ["--out", join(dir, `unbounded-out-${command}`), ...(command === "sync" ? ["--state", join(dir, "unbounded-state.json")] : [])];
          await expectUsage([command, "--base-url", samples.url, ...issuer, `--${option}`, path, ...extra], new RegExp(`^ocf-sync ${command}: --${option}: cannot read ${escape(path)}: ${escape(says)} \\[FILE_SYSTEM_ERROR\\]$`, "m"));
        }
      });
    }
  }

  it("reconcile --source: /dev/zero and a folder are usage errors naming --source and the path, before the package is read", async () => {
    for (const [path, says] of [["/dev/zero", "it is a character device, not a regular file or a pipe"], [dir, "it is a folder, not a regular file or a pipe"]] as const) {
      await expectUsage(["reconcile", "--source", path, join(dir, "no-package")], new RegExp(`^ocf-sync reconcile: --source: cannot read ${escape(path)}: ${escape(says)} \\[FILE_SYSTEM_ERROR\\]$`, "m"));
    }
  });

  it("reconcile --source: a file without line breaks over 512 MiB is refused at its first 64 MiB as not a pull's NDJSON (exit 2), not read into one string", async () => {
    const pkg = await exportedPackage();
    const zeros = join(dir, "zeros.ndjson");
    await writeFile(zeros, "");
    await truncate(zeros, 600 * 2 ** 20);
    const result = await runCliProcess(["reconcile", "--source", zeros, pkg], { cwd: dir });
    expect(result.stderr.trimEnd()).toBe(`ocf-sync reconcile: ${zeros} line 1: is longer than ${64 * 2 ** 20} bytes, more than a record line of 'ocf-sync pull' holds (is this the NDJSON of a pull?) [NDJSON_INVALID]`);
    expect(result.code).toBe(2);
  });

  it("reconcile --source: a FIFO (and a pipe) is streamed: the same report as from the file", async () => {
    const pkg = await exportedPackage();
    const file = join(dir, "reconcile-7.ndjson");
    const fromFile = await runCliProcess(["reconcile", "--source", file, pkg, "--json"], { cwd: dir });
    expect(fromFile.code).toBe(0);
    const fifo = join(dir, "reconcile-7.fifo");
    execFileSync("mkfifo", [fifo]);
    // The writer: a shell that copies the pull's NDJSON into the FIFO once the reader opens it.
    const writer = spawn("sh", ["-c", 'cat "$1" > "$2"', "sh", file, fifo], { stdio: "ignore" });
    const writerDone = new Promise((done) => writer.once("exit", done));
    const fromFifo = await runCliProcess(["reconcile", "--source", fifo, pkg, "--json"], { cwd: dir });
    await writerDone;
    expect(fromFifo.stderr).toBe("");
    // The same report, but for the source's name and the time each document was made.
    const untimed = (stdout: string): string => stdout.replace(/^  "generatedAt": "[^"]+",$/m, "");
    expect(untimed(fromFifo.stdout.replace(fifo, file))).toBe(untimed(fromFile.stdout));
    expect(fromFifo.code).toBe(0);
  });
});

/** `text` as a regular expression that matches it literally. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

let exported: Promise<string> | undefined;
/** Issuer 7 pulled to reconcile-7.ndjson and exported as of the samples' date: the package's path. */
function exportedPackage(): Promise<string> {
  exported ??= (async () => {
    const pulled = await runCliProcess(["pull", "--base-url", samples.url, "--issuer", "7", "--out", join(dir, "reconcile-7.ndjson")], { cwd: dir });
    expect(pulled.code).toBe(0);
    const out = join(dir, "reconcile-out");
    const result = await runCliProcess(["export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--as-of", "2025-06-30"], { cwd: dir });
    expect(result.code).toBe(0);
    return join(out, "7");
  })();
  return exported;
}

describe("links and unreadable files (issue 25, item 11)", () => {
  it("export and sync: an --out that is a link to nothing says so and names where it points (it said EEXIST)", async () => {
    const link = join(dir, "out-dangling");
    await symlink(join(dir, "out-nowhere"), link);
    for (const command of ["export", "sync"]) {
      const extra = command === "sync" ? ["--state", join(dir, "dangling-state.json")] : [];
      await expectUsage(
        [command, "--base-url", samples.url, "--issuer", "7", "--out", link, ...extra],
        new RegExp(`^ocf-sync ${command}: --out: cannot create the folder ${escape(link)}: ${escape(link)} is a symbolic link to ${escape(join(dir, "out-nowhere"))}, which does not exist; create that folder, or give another path \\[FILE_SYSTEM_ERROR\\]$`, "m"),
      );
    }
  });

  it("sync: a state that cannot be read is FILE_SYSTEM_ERROR saying why, not an invalid state to delete", async () => {
    // A loop of links: unreadable for root too.
    const state = join(dir, "state-loop.json");
    await symlink(state, state);
    const result = await runCliProcess(["sync", "--base-url", samples.url, "--issuer", "7", "--out", join(dir, "loop-out"), "--state", state], { cwd: dir });
    expect(result.stderr.trimEnd()).toBe(`ocf-sync sync: cannot read the sync state ${state}: too many symbolic links on the way (ELOOP) [FILE_SYSTEM_ERROR]`);
    expect(result.stderr).not.toMatch(/SYNC_STATE_INVALID|delete it/);
    expect(result.code).toBe(1);
  });

  it("pull --out LINK and reconcile --html LINK write through the link, which stays a link (they replaced it with a file)", async () => {
    const folder = join(dir, "links");
    await mkdir(join(folder, "real"), { recursive: true });
    await writeFile(join(folder, "real", "backup.ndjson"), "old\n");
    await symlink(join("real", "backup.ndjson"), join(folder, "backup.ndjson"));
    // A link to a file not there yet: the file is made where it points.
    await symlink(join("real", "report.html"), join(folder, "report.html"));

    const pulled = await runCliProcess(["pull", "--base-url", samples.url, "--issuer", "7", "--out", join(folder, "backup.ndjson")], { cwd: dir });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect((await lstat(join(folder, "backup.ndjson"))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(folder, "real", "backup.ndjson"), "utf8")).toMatch(/^\{"kind":/);

    const pkg = await exportedPackage();
    const reconciled = await runCliProcess(["reconcile", "--source", join(folder, "backup.ndjson"), pkg, "--html", join(folder, "report.html")], { cwd: dir });
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect((await lstat(join(folder, "report.html"))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(folder, "real", "report.html"), "utf8")).toMatch(/^<!DOCTYPE html>/i);
    // Nothing else was left beside either file.
    expect((await readdir(join(folder, "real"))).sort()).toEqual(["backup.ndjson", "report.html"]);
    expect((await readdir(folder)).sort()).toEqual(["backup.ndjson", "real", "report.html"]);
  });
});

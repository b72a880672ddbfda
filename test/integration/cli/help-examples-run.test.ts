/**
 * Every example of every `--help` runs as written, in a shell, in the order a reader meets them (the
 * program's help, then each command's): the real `ocf-sync` (from the sources) on the PATH, against
 * the sample API. Only what a reader must change anyway is changed: the real service's URL and the
 * examples' port 4010 become the sample server's address, and `/data/` a folder of the test's own.
 * `serve-samples` lines, which run until stopped, and `npm` lines are left out (help.test.ts checks
 * that they parse).
 */
import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { CLI_FROM_SOURCES } from "../../helpers/cli-process.js";

const HELPS = ["", "demo", "export", "pull", "reconcile", "sync", "validate", "serve-samples"];

/** The example lines of a help text, continuation lines joined. */
function exampleLines(help: string): string[] {
  const section = help.split(/\nExamples?[^\n]*:\n/)[1] ?? "";
  return section
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

function sh(line: string, options: { cwd: string; path: string }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile("/bin/sh", ["-c", line], { cwd: options.cwd, env: { PATH: options.path }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

let dir: string;
let bin: string;
let server: SampleServer;
let hasJq = false;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-help-run-"));
  bin = await mkdtemp(join(tmpdir(), "ocf-sync-help-bin-"));
  const quoted = [process.execPath, ...CLI_FROM_SOURCES].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");
  await writeFile(join(bin, "ocf-sync"), `#!/bin/sh\nexec ${quoted} "$@"\n`);
  await chmod(join(bin, "ocf-sync"), 0o755);
  server = await startSampleServer({ port: 0 });
  hasJq = (await sh("command -v jq", { cwd: dir, path: process.env.PATH ?? "" })).code === 0;
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
  await rm(bin, { recursive: true, force: true });
});

describe("every --help example runs as written", () => {
  it("in a shell, one after the other, against the sample API", { timeout: 600_000 }, async () => {
    const lines: string[] = [];
    for (const command of HELPS) {
      const io = captureIo(dir);
      expect(await runCli(command === "" ? ["--help"] : [command, "--help"], io)).toBe(0);
      lines.push(...exampleLines(io.stdout.text));
    }
    const runnable = lines.filter((line) => !line.startsWith("npm ") && !line.includes("ocf-sync serve-samples"));
    expect(runnable.length).toBeGreaterThan(20);
    const path = `${bin}${delimiter}${process.env.PATH ?? ""}`;
    for (const written of runnable) {
      let line = written
        .replaceAll("https://api.carta.com", server.url)
        .replaceAll("http://127.0.0.1:4010", server.url)
        .replaceAll(" /data/", " data/");
      if (!hasJq) line = line.replace(/\s\|\s*jq\s.*$/, "");
      const result = await sh(line, { cwd: dir, path });
      const context = `${written}\n${result.stderr}${result.stdout.slice(0, 2000)}`;
      // reconcile says "differences found" with 1: the acme-robotics sample record is inconsistent on purpose.
      expect(line.startsWith("ocf-sync reconcile") ? [0, 1] : [0], context).toContain(result.code);
      expect(result.stderr, context).not.toMatch(/\n\s+at |unexpected error|--help' for the options/);
      if (written === "ocf-sync reconcile --source acme.ndjson out/acme-robotics") {
        // Exported as of the samples' date, the package differs from its source by the one inconsistent record only.
        expect(result.stdout, context).toContain("DIFFERENCES: 2 (1 source-vs-ocf, 1 source)");
      }
    }
  });
});

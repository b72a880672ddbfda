/**
 * `export --out s3://` without a server: what is wrong before any request is a usage error (exit 2):
 * the optional @aws-sdk/client-s3 missing (named, with how to install it), a malformed location, and
 * `--resume`, which object storage does not support yet. No issuer is exported in any of them. The
 * same for `sync --out s3://` and `--state s3://`, whose state must name an object (a key).
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_FROM_SOURCES, runCliProcess, type CliRun } from "../../helpers/cli-process.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const folder = temporaryFolder("ocf-sync-s3-usage-");
// Nothing listens there: a request would fail differently (and later) than a usage error.
const BASE_URL = "http://127.0.0.1:9";

function withoutSdk(args: readonly string[], cwd: string): Promise<CliRun> {
  const hooks = resolve(import.meta.dirname, "../../helpers/without-aws-sdk.mjs");
  return new Promise((done) => {
    execFile(process.execPath, ["--import", hooks, ...CLI_FROM_SOURCES, ...args], { cwd, env: { PATH: process.env.PATH ?? "" } }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

describe("export --out s3:// usage errors", () => {
  it("names the optional package to install when @aws-sdk/client-s3 is missing", { timeout: 60_000 }, async () => {
    const run = await withoutSdk(["export", "--base-url", BASE_URL, "--issuer", "7", "--out", "s3://ocf-packages/runs"], folder());
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain("s3:// locations need the optional package @aws-sdk/client-s3: install it beside ocf-sync (npm install @aws-sdk/client-s3)");
  });

  it("refuses a malformed location and --resume", { timeout: 60_000 }, async () => {
    const bad = await runCliProcess(["export", "--base-url", BASE_URL, "--issuer", "7", "--out", "s3://X/runs"], { cwd: folder() });
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain("s3://BUCKET/PREFIX with a valid bucket name");
    const resume = await runCliProcess(["export", "--base-url", BASE_URL, "--issuer", "7", "--out", "s3://ocf-packages/runs", "--resume"], { cwd: folder() });
    expect(resume.code, resume.stderr).toBe(2);
    expect(resume.stderr).toContain("--resume does not work with --out s3:// yet");
  });
});

describe("sync with s3:// usage errors", () => {
  it("names the optional package to install, and refuses a state location that names no object", { timeout: 60_000 }, async () => {
    const missing = await withoutSdk(["sync", "--base-url", BASE_URL, "--issuer", "7", "--out", "out", "--state", "s3://ocf-packages/state.json"], folder());
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain("s3:// locations need the optional package @aws-sdk/client-s3");
    const bucketOnly = await runCliProcess(["sync", "--base-url", BASE_URL, "--issuer", "7", "--out", "s3://ocf-packages/runs", "--state", "s3://ocf-packages/"], { cwd: folder() });
    expect(bucketOnly.code, bucketOnly.stderr).toBe(2);
    expect(bucketOnly.stderr).toContain("--state s3://BUCKET/KEY names an object: give its key, such as s3://ocf-packages/sync-state.json");
    const bad = await runCliProcess(["sync", "--base-url", BASE_URL, "--issuer", "7", "--out", "s3://X/runs", "--state", "state.json"], { cwd: folder() });
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain("--out an object-storage location is s3://BUCKET/PREFIX with a valid bucket name");
  });
});

/**
 * The built CLI, run as a user runs it: `node bin/ocf-sync.cjs ...` in child processes, against the
 * sample server started by `ocf-sync serve-samples` in another child process. The build happens here
 * (tests never depend on an earlier build).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../helpers/spawn-cli.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const BIN = join(ROOT, "bin/ocf-sync.cjs");
const run = promisify(execFile);

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function startServeSamples(args: string[]): Promise<{ child: ChildProcess; url: string; issuers: string[] }> {
  const child = spawn(process.execPath, [BIN, "serve-samples", "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const read: string[] = [];
  for await (const line of lines) {
    read.push(line);
    if (read.length === 2) break;
  }
  const url = (read[0] ?? "").replace(/^listening on /, "");
  const issuers = (read[1] ?? "").replace(/^issuers: /, "").split(",");
  return { child, url, issuers };
}

async function folderDigest(dir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const file of (await readdir(dir)).sort()) hash.update(file).update(await readFile(join(dir, file)));
  return hash.digest("hex");
}

describe("the built CLI as a child process", () => {
  let server: { child: ChildProcess; url: string; issuers: string[] };
  let work: string;

  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT });
    server = await startServeSamples([]);
    work = await mkdtemp(join(tmpdir(), "ocf-sync-e2e-"));
  }, 120_000);
  afterAll(() => {
    server?.child.kill();
  });

  it("serve-samples prints its address and issuers first", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.issuers).toContain("acme-robotics");
  });

  it("exports every sample issuer and what it wrote validates", async () => {
    const args = ["export", "--base-url", server.url, ...server.issuers.flatMap((id) => ["--issuer", id]), "--out", "out", "--zip", "--log", "plain"];
    const result = await cli(args, work);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("5 of 5 issuers exported");
    const entries = await readdir(join(work, "out"));
    const zips = entries.filter((e) => e.endsWith(".ocf.zip"));
    expect(zips).toHaveLength(5);
    for (const zip of zips) {
      const checked = await cli(["validate", join("out", zip)], work);
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    }
    const json = await cli(["validate", join("out", "acme-robotics"), "--json"], work);
    expect((JSON.parse(json.stdout) as { valid: boolean }).valid).toBe(true);
  });

  it("export --resume keeps what the job wrote and retries what failed; a late --as-of is a warning on stderr", async () => {
    const args = ["export", "--base-url", server.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", "resumed", "--as-of", "2026-11-26", "--log", "plain"];
    const first = await cli(args, work);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('warn: issuer "7", asOf: is 2026-11-26, but 2 records have tranches dated on or before it');
    expect(first.stderr).toContain("export as of 2025-06-30 or earlier");
    expect(await readdir(join(work, "resumed"))).toContain(".ocf-sync-export.json");
    const second = await cli([...args, "--resume"], work);
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/^7 .* ok, resumed +7$/m);
    expect(second.stdout).toMatch(/^no-such-issuer .* FAILED API_NOT_FOUND/m);
    expect(second.stderr).toContain('issuer "7": already written by this export (resumed)');
    const json = await cli(["export", "--base-url", server.url, "--issuer", "7", "--out", "resumed", "--as-of", "2026-11-26", "--resume", "--json"], work);
    expect(json.code, json.stderr).toBe(0);
    // Resumed: the package this export wrote before is kept, not written again.
    expect((JSON.parse(json.stdout) as { issuers: { package: { written: boolean } }[] }).issuers.map((i) => i.package.written)).toEqual([false]);
    // Every issuer of the job is written: nothing is left to resume.
    expect(await readdir(join(work, "resumed"))).not.toContain(".ocf-sync-export.json");
  });

  it("validate rejects corrupted packages with the right exit code", async () => {
    const bad = join(work, "corrupt");
    await cp(join(work, "out", "7"), bad, { recursive: true });
    const transactions = join(bad, "Transactions.ocf.json");
    await writeFile(transactions, (await readFile(transactions, "utf8")).replace('"TX_STOCK_ISSUANCE"', '"TX_STOCK_ISSUANCE", "surprise": 1'));
    const invalid = await cli(["validate", bad], work);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain("MD5_MISMATCH");
    expect(invalid.stdout).toContain("surprise");
    const zip = await readFile(join(work, "out", "7.ocf.zip"));
    await writeFile(join(work, "truncated.ocf.zip"), zip.subarray(0, Math.floor(zip.length / 2)));
    const unusable = await cli(["validate", "truncated.ocf.zip"], work);
    expect(unusable.code).toBe(2);
  });

  /** Starts an export of issuer 144361 into `out` that stops dead at `point`; resolves once it is there. */
  async function exportPausedAt(out: string, point: string): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [BIN, "export", "--base-url", server.url, "--issuer", "144361", "--out", out, "--zip", "--generated-at", "2026-01-01T00:00:00Z", "--log", "plain"],
      { cwd: work, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, OCF_SYNC_PAUSE_AT: point } },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const said: string[] = [];
    for await (const line of createInterface({ input: child.stderr as NodeJS.ReadableStream })) {
      said.push(line);
      if (line.startsWith(`ocf-sync: paused at ${point} (pid ${child.pid})`)) return child;
    }
    throw new Error(`the export ended (${String(await exited)}) without pausing at ${point}:\n${said.join("\n")}`);
  }

  async function kill(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  it.each([
    ["while records are being pulled into the temporary folder", "pulling"],
    ["with the new package complete, not yet in place", "before-commit"],
    ["between the two renames, the previous package set aside", "between-renames"],
  ])("an export killed with SIGKILL %s leaves the previous package whole, and the next export repairs", async (_label, point) => {
    const out = join(work, `kill-${point}`);
    const first = await cli(["export", "--base-url", server.url, "--issuer", "144361", "--out", out, "--zip", "--generated-at", "2025-01-01T00:00:00Z", "--log", "plain"], work);
    expect(first.code, first.stderr).toBe(0);
    const before = await folderDigest(join(out, "144361"));
    const zipBefore = await readFile(join(out, "144361.ocf.zip"));

    const child = await exportPausedAt(out, point);
    await kill(child);
    const names = await readdir(out);
    const leftover = (kind: string) => names.filter((n) => n.startsWith(`.144361.${kind}-${child.pid}-`));
    expect(leftover("tmp"), names.join(", ")).toHaveLength(1);
    if (point === "between-renames") {
      // The previous package is set aside whole, under a name no reader takes for a package.
      expect(names).not.toContain("144361");
      expect(leftover("old")).toHaveLength(1);
      expect(await folderDigest(join(out, leftover("old")[0] ?? ""))).toBe(before);
    } else {
      expect(await folderDigest(join(out, "144361"))).toBe(before);
      expect(leftover("old")).toEqual([]);
    }
    if (point !== "pulling") {
      // The kill hit a complete, valid package (and its zip) that was not yet in place.
      expect(names.filter((n) => n.startsWith(`.144361.ocf.zip.tmp-${child.pid}-`))).toHaveLength(1);
      const checked = await cli(["validate", join(out, leftover("tmp")[0] ?? "")], work);
      expect(checked.code, checked.stdout).toBe(0);
    }
    expect(await readFile(join(out, "144361.ocf.zip"))).toEqual(zipBefore);

    // The next run puts back what was set aside, removes the leftovers and writes a complete package.
    const again = await cli(["export", "--base-url", server.url, "--issuer", "144361", "--out", out, "--zip", "--log", "plain"], work);
    expect(again.code, again.stderr).toBe(0);
    if (point === "between-renames") expect(again.stderr).toContain("restored 1 previous package(s) that an interrupted export had set aside: 144361");
    expect((await readdir(out)).sort()).toEqual(["144361", "144361.ocf.zip", "144361.report.json"]);
    expect((await cli(["validate", join(out, "144361")], work)).code).toBe(0);
    expect((await cli(["validate", join(out, "144361.ocf.zip")], work)).code).toBe(0);
    await rm(out, { recursive: true, force: true });
  });
});

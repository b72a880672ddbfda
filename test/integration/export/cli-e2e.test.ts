/**
 * The built CLI, run as a user runs it: `node bin/ocf-sync.js ...` in child processes, against the
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

const ROOT = resolve(import.meta.dirname, "../../..");
const BIN = join(ROOT, "bin/ocf-sync.js");
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

// TODO(lead, issue 9): the mapping keeps partial cancellations on the same security and does not
// declare it yet; the validate calls below read our exports with --reader same-security until
// packages say "Lineage: …" in Manifest.comments.
const OUR_READING = ["--reader", "same-security"];

describe("the built CLI as a child process", () => {
  let server: { child: ChildProcess; url: string; issuers: string[] };
  let slow: { child: ChildProcess; url: string; issuers: string[] };
  let work: string;

  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT });
    server = await startServeSamples([]);
    slow = await startServeSamples(["--latency-ms", "120"]);
    work = await mkdtemp(join(tmpdir(), "ocf-sync-e2e-"));
  }, 120_000);
  afterAll(() => {
    server?.child.kill();
    slow?.child.kill();
  });

  it("serve-samples prints its address and issuers first", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.issuers).toContain("acme-robotics");
  });

  it("exports every sample issuer and what it wrote validates", async () => {
    const args = ["export", "--base-url", server.url, ...server.issuers.flatMap((id) => ["--issuer", id]), "--out", "out", "--zip", "--log", "plain"];
    const result = await cli(args, work);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("5 of 5 issuers exported");
    const entries = await readdir(join(work, "out"));
    const zips = entries.filter((e) => e.endsWith(".ocf.zip"));
    expect(zips).toHaveLength(5);
    for (const zip of zips) {
      const checked = await cli(["validate", join("out", zip), ...OUR_READING], work);
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    }
    const json = await cli(["validate", join("out", "acme-robotics"), "--json", ...OUR_READING], work);
    expect((JSON.parse(json.stdout) as { valid: boolean }).valid).toBe(true);
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

  it("an export killed with SIGKILL never leaves a half package nor damages the previous one", async () => {
    const out = join(work, "kill");
    const first = await cli(["export", "--base-url", slow.url, "--issuer", "144361", "--out", out, "--generated-at", "2025-01-01T00:00:00Z", "--log", "plain"], work);
    expect(first.code, first.stderr).toBe(0);
    const before = await folderDigest(join(out, "144361"));

    let killedMidWrite = 0;
    for (const killAfterMs of [50, 400, 900]) {
      const child = spawn(
        process.execPath,
        [BIN, "export", "--base-url", slow.url, "--issuer", "144361", "--out", out, "--generated-at", "2026-01-01T00:00:00Z", "--log", "plain"],
        { cwd: work, stdio: "ignore" },
      );
      await new Promise((r) => setTimeout(r, killAfterMs));
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const names = await readdir(out);
      if (names.some((n) => n.startsWith(".144361.tmp-"))) killedMidWrite += 1;
      if (names.includes("144361")) {
        // either still the previous package, or the new one complete and valid
        const digest = await folderDigest(join(out, "144361"));
        if (digest !== before) {
          const checked = await cli(["validate", join(out, "144361"), ...OUR_READING], work);
          expect(checked.code, checked.stdout).toBe(0);
        }
      } else {
        // killed between the two renames: the previous package is set aside, whole
        const aside = names.find((n) => n.startsWith(".144361.old-"));
        expect(aside, names.join(",")).toBeDefined();
        expect(await folderDigest(join(out, aside ?? ""))).toBe(before);
      }
    }

    expect(killedMidWrite, "no kill landed while a package was being written").toBeGreaterThan(0);

    // The next run repairs what the killed ones left and writes a complete package.
    const again = await cli(["export", "--base-url", slow.url, "--issuer", "144361", "--out", out, "--log", "plain"], work);
    expect(again.code, again.stderr).toBe(0);
    expect((await readdir(out)).filter((n) => n.startsWith("."))).toEqual([]);
    expect((await cli(["validate", join(out, "144361"), ...OUR_READING], work)).code).toBe(0);
    await rm(out, { recursive: true, force: true });
  });
});

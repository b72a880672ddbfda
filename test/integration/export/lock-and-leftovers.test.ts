/**
 * One export (or sync) per output folder, and every run cleans what killed runs left there: two
 * exports into one --out are refused with a clear message (exit 1) instead of racing; an export finds
 * the temporary package folders, zips and reports and the lock of a killed run (SIGKILL: no cleanup
 * at all), removes them, takes over the lock with one line, and writes its package.
 */
import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { type LoopbackServer, hang, startLoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli, until } from "../../helpers/spawn-cli.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");
// pid 2^22+1 is above Linux's pid_max ceiling: the "killed run" below can never be alive.
const DEAD = 4_194_305;

let dir: string;
let samples: SampleServer;
let hanging: LoopbackServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-export-lock-"));
  samples = await startSampleServer({ port: 0 });
  hanging = await startLoopbackServer(hang);
});
afterAll(async () => {
  await samples.close();
  await hanging.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, err: io.stderr.text };
}

describe("the output folder", () => {
  it("refuses a second export (and a sync) into a folder an export is writing to, then works once it is free", async () => {
    const out = join(dir, "shared");
    await mkdir(out);
    await cp(join(GOLDEN, "7"), join(out, "7"), { recursive: true });
    const first = spawnCli(["export", "--base-url", hanging.url, "--issuer", "7", "--out", out, "--log", "plain"]);
    await until(() => hanging.requests.length > 0);

    const second = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
    expect(second.code).toBe(75); // retry it: another run holds the folder
    expect(second.err).toContain(`ocf-sync export: another export or sync is writing to ${out}: process ${first.child.pid} took it at`);
    expect(second.err).toContain("and is still running");
    expect(second.err).toContain("[OUTPUT_LOCKED]");
    expect(second.err).not.toMatch(/\n\s+at /);
    const sync = await run("sync", "--base-url", samples.url, "--issuer", "7", "--out", out, "--state", join(dir, "shared-state.json"), "--log", "plain");
    expect(sync.code).toBe(75);
    expect(sync.err).toContain("[OUTPUT_LOCKED]");

    first.child.kill("SIGINT");
    expect((await first.exited).code).toBe(130);
    // The killed job keeps its file, so that --resume can continue it.
    expect((await readdir(out)).sort()).toEqual([".ocf-sync-export.json", "7"]);
    const third = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
    expect(third.code, third.err).toBe(0);
  });

  it("refuses a folder whose lock another host renewed within its lease (exit 75), saying when it will be taken over", async () => {
    const out = join(dir, "other-host");
    await mkdir(out);
    const renewedAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await writeFile(join(out, ".ocf-sync.lock"), JSON.stringify({ pid: 1, host: "ocf-export-3-q8z1m", startedAt: renewedAt, renewedAt, leaseMs: 600_000 }));
    const takenOverAfter = new Date(Date.parse(renewedAt) + 600_000).toISOString().replace(/\.\d+Z$/, "Z");
    for (const command of [["export"], ["sync", "--state", join(dir, "other-host-state.json")]]) {
      const result = await run(...command, "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
      expect(result.code, result.err).toBe(75);
      expect(result.err).toContain(
        `another export or sync is writing to ${out}: process 1 on host "ocf-export-3-q8z1m" took it at ${renewedAt} and renewed it at ${renewedAt}; if it is not renewed, it is taken over after ${takenOverAfter} (its lease of 600 s)`,
      );
      expect(result.err).toContain("[OUTPUT_LOCKED]");
    }
    expect(await readdir(out)).toEqual([".ocf-sync.lock"]);
  });

  it("removes what a killed run left (temporary package folder, zip, report, lock parts), takes over its empty lock with one line, and exports", async () => {
    const out = join(dir, "leftovers");
    await mkdir(out);
    await cp(join(GOLDEN, "7"), join(out, "7"), { recursive: true });
    const leftovers = [`.7.ocf.zip.tmp-${DEAD}-0a1b2c3d`, `.7.report.json.tmp-${DEAD}-0a1b2c3e`, `.ocf-sync.lock.tmp-${DEAD}-0a1b2c3f`];
    for (const name of leftovers) await writeFile(join(out, name), "half written");
    await mkdir(join(out, `.7.tmp-${DEAD}-0a1b2c40`));
    await writeFile(join(out, `.7.tmp-${DEAD}-0a1b2c40`, "Manifest.ocf.json"), "{");
    await writeFile(join(out, ".ocf-sync.lock"), "");

    const result = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--zip", "--log", "plain");
    expect(result.code, result.err).toBe(0);
    const takeover = result.err.split("\n").filter((line) => line.includes("took over"));
    expect(takeover).toEqual([`warn: took over the lock of ${out}: the lock file ${join(out, ".ocf-sync.lock")} was empty`]);
    expect((await readdir(out)).sort()).toEqual(["7", "7.ocf.zip", "7.report.json"]);
    expect((await validatePackageAt(join(out, "7.ocf.zip"))).problems).toEqual([]);
  });

  it("takes over a lock file that is a symbolic link to nothing (it was refused forever), with one line", async () => {
    const out = join(dir, "dangling-lock");
    await mkdir(out);
    await symlink(join(dir, "gone.lock"), join(out, ".ocf-sync.lock"));
    const result = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
    expect(result.code, result.err).toBe(0);
    const takeover = result.err.split("\n").filter((line) => line.includes("took over"));
    expect(takeover).toEqual([`warn: took over the lock of ${out}: the lock file ${join(out, ".ocf-sync.lock")} was a symbolic link to ${join(dir, "gone.lock")}, which does not exist`]);
    expect((await readdir(out)).sort()).toEqual(["7", "7.report.json"]);
  });

  it("a leftover it cannot delete is a warning naming it, and the export (and the next) goes on", async (context) => {
    const out = join(dir, "undeletable");
    const leftover = join(out, `.7.tmp-${DEAD}-0a1b2c41`);
    await mkdir(join(leftover, "inner"), { recursive: true });
    await writeFile(join(leftover, "inner", "Manifest.ocf.json"), "{");
    // What makes it undeletable for real: a folder without write permission (not for root, whom no
    // permission stops), else a mount point inside it (where the machine lets tests mount).
    let undo: () => void;
    if (process.getuid?.() !== 0) {
      await chmod(join(leftover, "inner"), 0o555);
      undo = () => execFileSync("chmod", ["755", join(leftover, "inner")]);
    } else {
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", join(leftover, "inner")], { stdio: "ignore" });
      } catch {
        return context.skip("running as root on a machine that lets tests mount nothing: no real way to make a folder undeletable");
      }
      undo = () => execFileSync("umount", [join(leftover, "inner")]);
    }
    try {
      for (let run_ = 0; run_ < 2; run_ += 1) {
        const result = await run("export", "--base-url", samples.url, "--issuer", "7", "--out", out, "--log", "plain");
        expect(result.code, result.err).toBe(0);
        const kept = result.err.split("\n").filter((line) => line.includes("left in place"));
        expect(kept).toHaveLength(1);
        expect(kept[0]).toMatch(new RegExp(`^warn: cannot remove the leftover ${leftover.replace(/[.]/g, "\\.")}: .* \\((EACCES|EBUSY|EPERM)\\); it is left in place \\(no run uses it\\): remove it by hand$`));
        expect(await readdir(out)).toContain("7");
      }
    } finally {
      undo();
    }
  });
});


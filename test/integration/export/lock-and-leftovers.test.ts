/**
 * One export (or sync) per output folder, and every run cleans what killed runs left there: two
 * exports into one --out are refused with a clear message (exit 1) instead of racing; an export finds
 * the temporary package folders, zips and reports and the lock of a killed run (SIGKILL: no cleanup
 * at all), removes them, takes over the lock with one line, and writes its package.
 */
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
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
});

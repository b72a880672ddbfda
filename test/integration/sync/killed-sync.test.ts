/**
 * A sync killed with SIGKILL (no cleanup at all) at several points of its run: after each kill the
 * previous state and packages must be valid, and the next run must finish the interrupted work.
 */
import { spawn } from "node:child_process";
import { access, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer, type WireRecord } from "../../../src/sample-server/server.js";
import { readSyncState, snapshotFolderOf } from "../../../src/sync/state.js";
import { GENERATED_AT, eventsOf, expectSameAsFreshExport, freshSampleData, runSync, touch } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const ISSUERS = ["7", "acme-robotics", "144361"];

/** Runs `ocf-sync sync` in a child process and kills it with SIGKILL once a stderr line matches `killOn`. */
async function runUntilKilled(args: string[], killOn: (line: string) => boolean): Promise<{ killed: boolean; lines: string[] }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/bin.ts"), "sync", ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  const lines: string[] = [];
  let killed = false;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  for await (const line of createInterface({ input: child.stderr })) {
    lines.push(line);
    if (!killed && killOn(line)) {
      killed = child.kill("SIGKILL");
    }
  }
  await exited; // reaped: its pid is no longer alive, so its lock is stale
  return { killed, lines };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** What must hold after any kill: a readable state naming existing snapshots, and valid packages. */
async function expectConsistent(outDir: string, stateFile: string): Promise<void> {
  const state = await readSyncState(stateFile);
  for (const issuer of state.issuers) {
    expect(await exists(join(snapshotFolderOf(stateFile), issuer.snapshot)), issuer.snapshot).toBe(true);
  }
  for (const issuerId of ISSUERS) {
    const folder = join(outDir, packageNameFor(issuerId));
    const aside = (await readdir(outDir)).find((n) => n.startsWith(`.${packageNameFor(issuerId)}.old-`));
    const where = (await exists(folder)) ? folder : aside === undefined ? undefined : join(outDir, aside);
    expect(where, `package of ${issuerId}`).toBeDefined();
    // TODO(lead, issue 9): the mapping keeps partial cancellations on the same security and does not
    // declare it yet; drop this reader once packages say "Lineage: …" in Manifest.comments.
    const report = await validatePackageAt(where ?? "", { reader: "same-security" });
    expect(report.problems, issuerId).toEqual([]);
  }
}

describe("a sync killed mid-run", () => {
  let server: SampleServer;
  let dir: string;
  beforeAll(async () => {
    // Latency stretches each pull so the kills land while work is in flight.
    server = await startSampleServer({ port: 0, data: await freshSampleData(), latencyMs: 40 });
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-killed-"));
  });
  afterAll(async () => server.close());

  it("leaves the previous state and packages valid, and the next run redoes the interrupted work", async () => {
    const outDir = join(dir, "out");
    const stateFile = join(dir, "state.json");
    const base = ["--base-url", server.url, ...ISSUERS.flatMap((id) => ["--issuer", id]), "--out", outDir, "--state", stateFile, "--generated-at", GENERATED_AT, "--as-of", "2025-07-01", "--log", "json", "--concurrency", "1"];
    await runSync(server.url, ISSUERS, { outDir, stateFile });

    // Change every issuer, and delete a record of 7 that only a full pass can see.
    for (const issuerId of ISSUERS) {
      const awards = server.data.issuers.get(issuerId)?.awards ?? [];
      const award = awards[0] as WireRecord;
      award.securityLabel = `${String(award.securityLabel)}-changed`;
      touch(award, "2025-07-01T00:00:00Z");
    }
    const awardsOf7 = server.data.issuers.get("7")?.awards ?? [];
    awardsOf7.splice(1, 1);

    // Killed as the first issuer's package is written (before or just after its state is saved).
    const first = await runUntilKilled([...base, "--full"], (line) => line.includes("package written"));
    expect(first.killed, first.lines.join("\n")).toBe(true);
    await expectConsistent(outDir, stateFile);
    const interruptedFull = (await readSyncState(stateFile)).issuers.find((s) => s.issuerId === "7")?.fullPending === true;

    // Killed again, later in the run (one issuer at a time, in the order given), as the second issuer starts.
    const second = await runUntilKilled(base, (line) => line.includes('issuer \\"acme-robotics\\": records modified since') || line.includes('issuer \\"acme-robotics\\": full pass'));
    expect(second.killed, second.lines.join("\n")).toBe(true);
    // A full pass killed before its state was saved is redone as a full one, so the deletion is not lost.
    if (interruptedFull) expect(second.lines.some((l) => l.includes('issuer \\"7\\": full pass (interrupted-full)'))).toBe(true);
    await expectConsistent(outDir, stateFile);

    // Killed as soon as it starts.
    const third = await runUntilKilled(base, () => true);
    expect(third.killed).toBe(true);
    await expectConsistent(outDir, stateFile);

    // The next run takes over the dead run's lock and finishes: every package as a fresh export.
    const events = await runSync(server.url, ISSUERS, { outDir, stateFile });
    expect(eventsOf(events, "lock-acquired")[0]?.tookOverFrom).toBeDefined();
    const done = eventsOf(events, "sync-done")[0];
    expect(done?.results.every((r) => r.ok)).toBe(true);
    for (const issuerId of ISSUERS) await expectSameAsFreshExport(server.url, issuerId, outDir);
    expect((await readdir(outDir)).filter((n) => n.startsWith("."))).toEqual([]);
    const state = await readSyncState(stateFile);
    expect(state.issuers.every((s) => s.fullPending !== true)).toBe(true);
    expect((await readdir(snapshotFolderOf(stateFile))).sort()).toEqual(state.issuers.map((s) => s.snapshot).sort());
  });
});

/**
 * The lock file shared by `sync` (its state) and `export` (its output folder): one holder at a time, and
 * a stale lock (its owner gone, or the file empty or corrupt) taken over with a reason, never silently.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputLockedError, acquireOutputLock } from "../../../src/export/output-lock.js";
import { acquireLockFile } from "../../../src/io/lock-file.js";

// pid 2^22+1 is above Linux's pid_max ceiling: no such process can exist.
const DEAD_PID = 4_194_305;
const refuse = ({ why }: { why: string }): Error => new Error(`refused: ${why}`);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-lock-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lockFileWith(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("acquireLockFile", () => {
  it("writes its owner in one step and removes the file on release, leaving nothing else", async () => {
    const path = join(dir, "fresh.lock");
    const lock = await acquireLockFile(path, refuse);
    expect(lock.tookOver).toBeUndefined();
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    await lock.release();
    await lock.release();
    expect((await readdir(dir)).filter((n) => n.includes("fresh"))).toEqual([]);
  });

  it.each([
    ["empty", "", "was empty"],
    ["corrupt", "{ not json", "did not name its owner"],
    ["corrupt", JSON.stringify({ pid: "12", host: hostname() }), "did not name its owner"],
    ["dead-process", JSON.stringify({ pid: DEAD_PID, host: hostname(), startedAt: "2026-01-01T00:00:00Z" }), `process ${DEAD_PID}, which took the lock`],
    // A lock naming this very process that it does not hold: an earlier process had the same pid.
    ["dead-process", JSON.stringify({ pid: process.pid, host: hostname(), startedAt: "2026-01-01T00:00:00Z" }), "is no longer running"],
  ])("takes over a %s lock, saying why", async (reason, content, description) => {
    const path = await lockFileWith(`stale-${reason}-${content.length}.lock`, content);
    const lock = await acquireLockFile(path, refuse);
    expect(lock.tookOver?.reason).toBe(reason);
    expect(lock.tookOver?.description).toContain(description);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it("refuses a lock held by a live process, one of another host, and a second hold by this process", async () => {
    const live = await lockFileWith("live.lock", JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: "2026-01-01T00:00:00Z" }));
    await expect(acquireLockFile(live, refuse)).rejects.toThrow(`refused: process ${process.ppid} took it at 2026-01-01T00:00:00Z and is still running`);
    const other = await lockFileWith("other.lock", JSON.stringify({ pid: 1, host: "elsewhere", startedAt: "2026-01-01T00:00:00Z" }));
    await expect(acquireLockFile(other, refuse)).rejects.toThrow('process 1 on host "elsewhere"');

    const path = join(dir, "twice.lock");
    const results = await Promise.allSettled([acquireLockFile(path, refuse), acquireLockFile(path, refuse)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")?.status === "rejected").toBe(true);
    for (const r of results) if (r.status === "fulfilled") await r.value.release();
    // The refused attempt left the holder's lock alone; after release it can be had again.
    const again = await acquireLockFile(path, refuse);
    expect(again.tookOver).toBeUndefined();
    await again.release();
  });

  it("reports a lock that cannot be created as a FileSystemError", async () => {
    await expect(acquireLockFile("/proc/ocf-sync.lock", refuse)).rejects.toMatchObject({ code: "FILE_SYSTEM_ERROR" });
  });
});

describe("the output folder's lock", () => {
  it("refuses a second export into one folder with a message naming the folder and the holder", async () => {
    const out = await mkdtemp(join(dir, "out-"));
    const first = await acquireOutputLock(out);
    const error = await acquireOutputLock(out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputLockedError);
    expect((error as OutputLockedError).message).toContain(`another export or sync is writing to ${out}: this process (${process.pid}) already holds it`);
    await first.release();
  });
});

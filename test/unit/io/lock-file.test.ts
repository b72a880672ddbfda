/**
 * The lock file shared by `sync` (its state) and `export` (its output folder): one holder at a time, and
 * a stale lock (its owner gone, or the file empty or corrupt) taken over with a reason, never silently.
 */
import { spawn } from "node:child_process";
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../helpers/spawn-cli.js";
import { OutputLockedError, acquireOutputLock } from "../../../src/export/output-lock.js";
import { acquireLockFile, processStartOf } from "../../../src/io/lock-file.js";

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

/** A lock file this process wrote (held, then released): what a fresh lock holds. */
async function lockOf(): Promise<string> {
  const path = join(dir, "mine.lock");
  const lock = await acquireLockFile(path, refuse);
  const copy = join(dir, "mine-copy.json");
  await writeFile(copy, await readFile(path));
  await lock.release();
  return copy;
}

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
    // The parent wrote it: its start, as the kernel counts it, is in the lock.
    const now = new Date().toISOString();
    const live = await lockFileWith("live.lock", JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: now, processStart: await processStartOf(process.ppid) }));
    await expect(acquireLockFile(live, refuse)).rejects.toThrow(`refused: process ${process.ppid} took it at ${now} and is still running`);
    // A lock of an older version, without the start: written after the process started, it is its.
    const older = await lockFileWith("live-older.lock", JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: now }));
    await expect(acquireLockFile(older, refuse)).rejects.toThrow(`refused: process ${process.ppid} took it at ${now} and is still running`);
    const other = await lockFileWith("other.lock", JSON.stringify({ pid: 1, host: "elsewhere", startedAt: now, renewedAt: now, leaseMs: 60_000 }));
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

  it("records its owner's start and boot, where the system tells (Linux)", async () => {
    const path = join(dir, "start.lock");
    const lock = await acquireLockFile(path, refuse);
    const start = await processStartOf(process.pid);
    expect(start).toMatch(/^[0-9]+$/);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid, processStart: start, bootId: expect.stringMatching(/./) });
    await lock.release();
  });

  it("takes over a lock whose pid now belongs to a live process that started after it (a reused pid, a container's pid 1)", async () => {
    // A live process of this host, started now: the pid a lock written earlier names.
    const other = spawn("sleep", ["600"], { stdio: "ignore" });
    try {
      const pid = other.pid!;
      await until(async () => (await processStartOf(pid)) !== undefined);
      const cases = [
        // The lock records another start than the live process's.
        { name: "recorded", content: { pid, host: hostname(), startedAt: new Date().toISOString(), processStart: "1", bootId: JSON.parse(await readFile(await lockOf(), "utf8")).bootId } },
        // A lock of an older version: written long before the live process started.
        { name: "older", content: { pid, host: hostname(), startedAt: "2026-01-01T00:00:00Z" } },
      ];
      for (const { name, content } of cases) {
        const path = await lockFileWith(`reused-${name}.lock`, JSON.stringify(content));
        const lock = await acquireLockFile(path, refuse);
        expect(lock.tookOver?.reason).toBe("pid-reused");
        expect(lock.tookOver?.description).toContain(`pid ${pid} now belongs to a process that started after it`);
        expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid });
        await lock.release();
      }
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("takes over a lock file that is a symbolic link to nothing, saying so", async () => {
    const path = join(dir, "dangling.lock");
    await symlink(join(dir, "nowhere"), path);
    const lock = await acquireLockFile(path, refuse);
    expect(lock.tookOver).toMatchObject({ reason: "corrupt", description: `the lock file ${path} was a symbolic link to ${join(dir, "nowhere")}, which does not exist` });
    expect((await lstat(path)).isFile()).toBe(true);
    await lock.release();
  });

  it("reports a lock that cannot be created as a FileSystemError", async () => {
    await expect(acquireLockFile("/proc/ocf-sync.lock", refuse)).rejects.toMatchObject({ code: "FILE_SYSTEM_ERROR" });
  });
});

describe("a lock is a lease", () => {
  const T = Date.parse("2026-11-27T12:00:00Z");
  /** A clock the test moves by hand. */
  function clock(start = T): { now: () => number; at: number } {
    const c = { at: start, now: () => c.at };
    return c;
  }
  const foreign = (fields: Record<string, unknown>): string => JSON.stringify({ pid: 1, host: "pod-a-7f9c", startedAt: "2026-11-27T11:00:00Z", processStart: "42", bootId: "b", ...fields });

  it("records its lease and renewal, and each renewal rewrites renewedAt (the same owner and token)", async () => {
    const path = join(dir, "renewed.lock");
    const c = clock();
    const lock = await acquireLockFile(path, refuse, { now: c.now, leaseMs: 30_000 });
    const first = JSON.parse(await readFile(path, "utf8"));
    expect(first).toMatchObject({ pid: process.pid, host: hostname(), startedAt: "2026-11-27T12:00:00Z", renewedAt: "2026-11-27T12:00:00Z", leaseMs: 30_000 });
    c.at += 5_000;
    expect(await lock.renew()).toBe(true);
    const second = JSON.parse(await readFile(path, "utf8"));
    expect(second).toEqual({ ...first, renewedAt: "2026-11-27T12:00:05Z" });
    expect((await readdir(dir)).filter((n) => n.startsWith(".renewed.lock"))).toEqual([]);
    await lock.release();
    expect(await lock.renew()).toBe(false);
  });

  it("renews on its own timer while held, and stops on release", async () => {
    const path = join(dir, "timer.lock");
    const c = clock();
    // A lease of 60 ms: renewed every 10 ms, each time at a later instant of the test's clock.
    const lock = await acquireLockFile(path, refuse, { now: () => (c.at += 1_000), leaseMs: 60 });
    const renewedAt = async (): Promise<string> => JSON.parse(await readFile(path, "utf8")).renewedAt as string;
    const first = await renewedAt();
    await until(async () => (await renewedAt()) > first);
    await lock.release();
    await expect(readFile(path)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("takes over a lock of another host not renewed within its lease, saying so; within it, refuses and says when it will be taken over", async () => {
    const lease = { renewedAt: "2026-11-27T11:59:00Z", leaseMs: 60_000 };
    const within = await lockFileWith("lease-within.lock", foreign(lease));
    await expect(acquireLockFile(within, refuse, { now: clock(T - 1).now })).rejects.toThrow(
      'refused: process 1 on host "pod-a-7f9c" took it at 2026-11-27T11:00:00Z and renewed it at 2026-11-27T11:59:00Z; if it is not renewed, it is taken over after 2026-11-27T12:00:00Z (its lease of 60 s)',
    );
    const lock = await acquireLockFile(within, refuse, { now: clock(T + 1).now });
    expect(lock.tookOver).toMatchObject({
      reason: "lease-expired",
      owner: { pid: 1, host: "pod-a-7f9c", ...lease },
      description: `process 1 on host "pod-a-7f9c", which took the lock ${within} at 2026-11-27T11:00:00Z, last renewed it at 2026-11-27T11:59:00Z, longer ago than its lease of 60 s (its run was killed or lost)`,
    });
    expect(JSON.parse(await readFile(within, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    await lock.release();
  });

  it("judges another host's lock by the lease it records, else by the taker's; a lock of an older version by its startedAt", async () => {
    // Its owner renews every 100 s (a lease of 600 s): the taker's 60 s must not cut it short.
    const long = await lockFileWith("lease-long.lock", foreign({ renewedAt: "2026-11-27T11:55:00Z", leaseMs: 600_000 }));
    await expect(acquireLockFile(long, refuse, { now: clock().now, leaseMs: 60_000 })).rejects.toThrow("taken over after 2026-11-27T12:05:00Z (its lease of 600 s)");
    const older = await lockFileWith("lease-older.lock", JSON.stringify({ pid: 1, host: "pod-a-7f9c", startedAt: "2026-11-27T11:59:30Z" }));
    await expect(acquireLockFile(older, refuse, { now: clock().now, leaseMs: 60_000 })).rejects.toThrow("renewed it at 2026-11-27T11:59:30Z; if it is not renewed, it is taken over after 2026-11-27T12:00:30Z");
    const lock = await acquireLockFile(older, refuse, { now: clock(T + 31_000).now, leaseMs: 60_000 });
    expect(lock.tookOver?.reason).toBe("lease-expired");
    await lock.release();
  });

  it("a live owner of this host keeps its lock however long ago it renewed it", async () => {
    const ancient = await lockFileWith(
      "lease-same-host.lock",
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: "2026-01-01T00:00:00Z", renewedAt: "2026-01-01T00:00:00Z", leaseMs: 1, processStart: await processStartOf(process.ppid) }),
    );
    await expect(acquireLockFile(ancient, refuse, { now: clock().now })).rejects.toThrow(`refused: process ${process.ppid} took it at 2026-01-01T00:00:00Z and is still running`);
  });

  it("a renewal that fails is reported and tried again, never thrown", async () => {
    const path = join(dir, "unrenewable.lock");
    const failures: string[] = [];
    const lock = await acquireLockFile(path, refuse, { now: clock().now, onRenewalFailed: (message) => failures.push(message) });
    const content = await readFile(path, "utf8");
    // A lock that cannot be read back (a folder in its place: EISDIR, for root too).
    await rm(path);
    await mkdir(path);
    expect(await lock.renew()).toBe(false);
    expect(failures).toEqual([expect.stringMatching(new RegExp(`^could not renew the lock ${path.replace(/[.]/g, "\\.")} \\(tried again in 10 s\\): .*EISDIR`))]);
    await rm(path, { recursive: true });
    await writeFile(path, content);
    expect(await lock.renew()).toBe(true);
    await lock.release();
  });

  it("a holder whose lock was taken over after its lease stops renewing and leaves the new owner's lock in place", async () => {
    const path = join(dir, "lost.lock");
    const failures: string[] = [];
    const lock = await acquireLockFile(path, refuse, { now: clock().now, onRenewalFailed: (message) => failures.push(message) });
    const theirs = foreign({ renewedAt: "2026-11-27T12:00:00Z", leaseMs: 60_000, token: "theirs" });
    await writeFile(path, theirs);
    expect(await lock.renew()).toBe(false);
    expect(await lock.renew()).toBe(false);
    expect(failures).toEqual([`the lock ${path} is no longer this process's (another run took it over after its lease ran out): it is not renewed any more`]);
    await lock.release();
    expect(await readFile(path, "utf8")).toBe(theirs);
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

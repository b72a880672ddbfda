/**
 * A lock file: one holder at a time for a state file (`sync`) or an output folder (`export`, `sync`).
 * It holds the pid, host and start time of its owner, and appears with that content in one step: it
 * is written under a temporary name, flushed, then hard-linked to the lock's name, which fails when a
 * lock is already there. So a lock file is never seen empty or half-written while its owner lives,
 * and one that is (a crash on a file system that lost the data, a hand edit) is as stale as one whose
 * owner process is gone.
 *
 * A live process of this host counts as the owner only if it is the process that wrote the lock: a
 * pid is reused (after a restart, a container's pid 1 is always 1), so the lock records its owner's
 * start as the kernel counts it (`/proc/<pid>/stat`, field 22) and the machine's boot, and a live
 * process with that pid that started otherwise (or, for a lock without them, after the lock was
 * written) is another process: the lock is stale. A lock file that is a symbolic link to nothing
 * (a dangling link) is stale too, not a lock that can never be had.
 *
 * A lock is a lease: its owner rewrites it (atomically, with a new `renewedAt`) every sixth of its
 * lease (`leaseMs`, recorded in the lock; 60 s by default), so a lock not renewed for its lease is
 * stale whatever host wrote it: a retried pod has a new host name and the old pod is gone, and no one
 * need delete the file. The lease is what makes another host's lock checkable; a lock of this host is
 * still judged by its process (a live owner keeps it, however late its renewals), as a renewal can be
 * late on a loaded machine. Hosts' clocks must agree to well within the lease (NTP does).
 *
 * Taking over a stale lock: the stale file is renamed aside (of two processes doing this at once only
 * one rename succeeds), checked to be the very file that was judged stale (else it is put back: it is
 * the fresh lock of a third process), removed, and a new lock is linked in; if another process linked
 * its lock first, this one is refused.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { link, lstat, readFile, readlink, rename, rm } from "node:fs/promises";
import { utcNowRfc3339 } from "../dates.js";
import { errnoOf, fileSystemError } from "../errors.js";
import { createExclusive, createTemporarySibling, temporaryNameFor } from "./atomic-file.js";

/**
 * What a lock file holds.
 *
 * @category Sync
 */
export interface LockOwner {
  pid: number;
  host: string;
  /** RFC 3339 UTC. */
  startedAt: string;
  /**
   * When the owner process started, in clock ticks since boot (`/proc/<pid>/stat` field 22), where
   * the system tells (Linux); absent in locks of older versions.
   */
  processStart?: string;
  /** The boot the `processStart` counts from (`/proc/sys/kernel/random/boot_id`). */
  bootId?: string;
  /** RFC 3339 UTC: when the owner last renewed the lock; absent in locks of older versions (then `startedAt`). */
  renewedAt?: string;
  /** How long the lock stays live without a renewal, in milliseconds; absent in locks of older versions. */
  leaseMs?: number;
}

/** How long a lock stays live without a renewal, unless the lock or the caller says otherwise. */
export const DEFAULT_LEASE_MS = 60_000;

/** Options of {@link acquireLockFile}. */
export interface LockOptions {
  signal?: AbortSignal | undefined;
  /**
   * How long the lock stays live without a renewal, in milliseconds: it is renewed every sixth of it,
   * and recorded in the lock. A lock of another host that records none gets this one. @default 60000
   */
  leaseMs?: number | undefined;
  /** Milliseconds since the epoch: the clock leases are judged and renewed by. @default Date.now */
  now?: (() => number) | undefined;
  /**
   * Called with one line when a renewal fails (it is tried again at the next one) or finds the lock
   * taken over by another run (renewals stop). The job goes on either way.
   */
  onRenewalFailed?: ((message: string, fields: { lockFile: string; errno?: string | undefined }) => void) | undefined;
}

/**
 * Why a lock was taken over.
 *
 * @category Sync
 */
export type StaleLockReason =
  /** Its owner is a process of this host that is no longer running (a run that was killed). */
  | "dead-process"
  /** Its pid belongs to a live process of this host that is not its owner: one that started later. */
  | "pid-reused"
  /** Its owner, a process of another host, did not renew it within its lease (a pod killed or lost). */
  | "lease-expired"
  /** The file was empty. */
  | "empty"
  /** The file did not name an owner (not JSON, or fields missing), or is a symbolic link to nothing. */
  | "corrupt";

/**
 * A stale lock that was taken over.
 *
 * @category Sync
 */
export interface StaleLock {
  reason: StaleLockReason;
  /** The owner it named, when it named one. */
  owner: LockOwner | undefined;
  /** One line saying what was taken over and why, for logs. */
  description: string;
}

/** A lock held by this process. */
export interface HeldLock {
  readonly lockFile: string;
  /** The stale lock that was taken over to get this one, if any. */
  readonly tookOver: StaleLock | undefined;
  /**
   * Rewrites the lock with `renewedAt` now (done every sixth of the lease while it is held); false
   * when the lock is no longer this process's (another took it over after the lease ran out).
   * Never throws: a failure goes to `onRenewalFailed`, and the next renewal tries again.
   */
  renew(): Promise<boolean>;
  /** Stops renewing and removes the lock file if it is still this process's (once; later calls do nothing). */
  release(): Promise<void>;
}

/** Why a lock could not be had: a live holder, one that cannot be checked, or a race lost. */
export interface LockRefusal {
  lockFile: string;
  owner: LockOwner | undefined;
  /** The rest of a sentence: "process 12 took it at … and is still running". */
  why: string;
}

/**
 * Lock files this process holds or is taking now. A second attempt of this process is refused at
 * once, so a lock file naming this process's pid that is not in here was left by an earlier process
 * that had the same pid (a container's pid 1, say): that process is gone.
 */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoOf(error) === "EPERM";
  }
}

/**
 * When process `pid` started, in clock ticks since boot (`/proc/<pid>/stat` field 22); `undefined`
 * where the system does not tell (not Linux, no /proc) or the process is gone.
 */
export async function processStartOf(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Field 2, the command name, is in parentheses and may hold spaces and ")": fields are counted
    // from after its last ")", where field 3 begins.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3];
    return start !== undefined && /^[0-9]+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

async function bootId(): Promise<string | undefined> {
  return readFile("/proc/sys/kernel/random/boot_id", "utf8").then((text) => text.trim() || undefined, () => undefined);
}

/**
 * When a process that started `ticks` after boot started, in milliseconds since the epoch: the boot
 * time (`btime` of /proc/stat, in whole seconds) plus the ticks at 100 a second (USER_HZ, 100 on
 * every Linux architecture Node.js runs on). `undefined` where /proc does not tell.
 */
async function startedAtMs(ticks: string): Promise<number | undefined> {
  const stat = await readFile("/proc/stat", "utf8").catch(() => "");
  const btime = /^btime (\d+)$/m.exec(stat)?.[1];
  return btime === undefined ? undefined : Number(btime) * 1000 + Number(ticks) * 10;
}

/**
 * Whether the live process `pid` is another than the one that wrote the lock of `owner`: its start
 * differs from the one the lock records, or (a lock without it) came after the lock was written. The
 * wall-clock comparison allows 2 s: the boot time is in whole seconds, the lock's time too.
 */
async function isOtherProcess(owner: LockOwner, me: LockOwner): Promise<boolean> {
  const start = await processStartOf(owner.pid);
  if (start === undefined) return false;
  if (owner.processStart !== undefined && (owner.bootId === undefined || owner.bootId === me.bootId)) return start !== owner.processStart;
  const started = await startedAtMs(start);
  const written = Date.parse(owner.startedAt);
  return started !== undefined && Number.isFinite(written) && started > written + 2000;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const json = JSON.parse(text) as Partial<LockOwner> | null;
    const leaseMs = json?.leaseMs;
    if (typeof json?.pid === "number" && Number.isInteger(json.pid) && json.pid > 0 && typeof json.host === "string" && typeof json.startedAt === "string") {
      return {
        pid: json.pid,
        host: json.host,
        startedAt: json.startedAt,
        ...(typeof json.processStart === "string" ? { processStart: json.processStart } : {}),
        ...(typeof json.bootId === "string" ? { bootId: json.bootId } : {}),
        ...(typeof json.renewedAt === "string" ? { renewedAt: json.renewedAt } : {}),
        ...(typeof leaseMs === "number" && Number.isFinite(leaseMs) && leaseMs > 0 ? { leaseMs } : {}),
      };
    }
  } catch {
    // not JSON: corrupt
  }
  return undefined;
}

/** Creates `lockFile` holding `content`, in one step; false when a lock file is already there. */
async function createLock(lockFile: string, content: string): Promise<boolean> {
  let temporary: string | undefined;
  try {
    temporary = await createTemporarySibling(lockFile, content);
    try {
      await link(temporary, lockFile);
      return true;
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === "EEXIST") return false;
      // A file system without hard links: an exclusive create, with a moment in which the file is empty.
      if (errno !== "EPERM" && errno !== "ENOTSUP" && errno !== "EOPNOTSUPP" && errno !== "ENOSYS") throw error;
      return await createExclusive(lockFile, content);
    }
  } catch (error) {
    throw fileSystemError("create the lock file", lockFile, error);
  } finally {
    if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => {});
  }
}

/** What stands for a symbolic link to nothing in the text of a lock: its target after this mark. */
const DANGLING_LINK = "\u0000dangling link to ";

/**
 * The text of the lock file at `path`; for a symbolic link to nothing, `DANGLING_LINK` and its target
 * (the link cannot be read through, but it is there: `link` finds it and refuses to replace it).
 */
async function readLock(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw fileSystemError("read the lock file", path, error);
  }
  try {
    if ((await lstat(path)).isSymbolicLink()) return `${DANGLING_LINK}${await readlink(path)}`;
  } catch {
    // gone meanwhile
  }
  return undefined;
}

/** Whether the lock whose text is `text` is stale, and why; or why it must be respected. */
async function judge(text: string, me: LockOwner, lockFile: string, lease: { leaseMs: number; now: number }): Promise<{ stale: StaleLock } | { live: LockRefusal }> {
  if (text.startsWith(DANGLING_LINK)) {
    return { stale: { reason: "corrupt", owner: undefined, description: `the lock file ${lockFile} was a symbolic link to ${text.slice(DANGLING_LINK.length)}, which does not exist` } };
  }
  if (text.trim() === "") return { stale: { reason: "empty", owner: undefined, description: `the lock file ${lockFile} was empty` } };
  const owner = parseOwner(text);
  if (owner === undefined) return { stale: { reason: "corrupt", owner, description: `the lock file ${lockFile} did not name its owner` } };
  if (owner.host !== me.host) {
    // The lease the owner renews by, as it recorded it; else (an older version) the caller's.
    const leaseMs = owner.leaseMs ?? lease.leaseMs;
    const renewedAt = owner.renewedAt ?? owner.startedAt;
    const renewed = Date.parse(renewedAt);
    const who = `process ${owner.pid} on host ${JSON.stringify(owner.host)}`;
    const seconds = `${leaseMs / 1000} s`;
    // A date that cannot be read says nothing of when its owner was last seen: the lease counts from it as never renewed.
    if (!Number.isFinite(renewed) || lease.now - renewed > leaseMs) {
      return {
        stale: {
          reason: "lease-expired",
          owner,
          description: `${who}, which took the lock ${lockFile} at ${owner.startedAt}, last renewed it at ${renewedAt}, longer ago than its lease of ${seconds} (its run was killed or lost)`,
        },
      };
    }
    return {
      live: {
        lockFile,
        owner,
        why: `${who} took it at ${owner.startedAt} and renewed it at ${renewedAt}; if it is not renewed, it is taken over after ${utcNowRfc3339(renewed + leaseMs)} (its lease of ${seconds})`,
      },
    };
  }
  if (owner.pid !== process.pid && isAlive(owner.pid)) {
    if (await isOtherProcess(owner, me)) {
      return {
        stale: {
          reason: "pid-reused",
          owner,
          description: `process ${owner.pid}, which took the lock ${lockFile} at ${owner.startedAt}, is no longer running (pid ${owner.pid} now belongs to a process that started after it)`,
        },
      };
    }
    return { live: { lockFile, owner, why: `process ${owner.pid} took it at ${owner.startedAt} and is still running` } };
  }
  return {
    stale: { reason: "dead-process", owner, description: `process ${owner.pid}, which took the lock ${lockFile} at ${owner.startedAt}, is no longer running` },
  };
}

/** Moves the stale lock whose text was `text` out of the way; false when another process got there first. */
async function removeStale(lockFile: string, text: string): Promise<boolean> {
  const aside = temporaryNameFor(lockFile);
  try {
    await rename(lockFile, aside);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return false;
    throw fileSystemError("take over the lock file", lockFile, error);
  }
  const moved = await readLock(aside).catch(() => undefined);
  if (moved !== text) {
    // Between reading and renaming, another process replaced the stale lock with its own: put it back.
    await link(aside, lockFile).catch(() => {});
    await rm(aside, { force: true });
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

/**
 * Takes the lock `lockFile`; a stale one (empty, corrupt, a link to nothing, left by a process of
 * this host that is gone, its pid maybe reused, or one of another host not renewed within its lease)
 * is taken over and described in `tookOver`. While held, the lock is renewed every sixth of its
 * lease, on a timer that keeps no process alive; `release` stops it.
 *
 * @param refuse builds the error thrown when a live process (of this host, or of another within its
 *   lease) holds the lock, or another process took it at the same moment.
 * @throws the error of `refuse`; {FileSystemError} when the lock file cannot be created or read.
 */
export async function acquireLockFile(lockFile: string, refuse: (refusal: LockRefusal) => Error, options: LockOptions = {}): Promise<HeldLock> {
  options.signal?.throwIfAborted();
  const { leaseMs = DEFAULT_LEASE_MS, now = Date.now, onRenewalFailed } = options;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new RangeError(`leaseMs must be a positive number of milliseconds, got ${leaseMs}`);
  const [processStart, boot] = await Promise.all([processStartOf(process.pid), bootId()]);
  const startedAt = utcNowRfc3339(now());
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    startedAt,
    ...(processStart === undefined ? {} : { processStart }),
    ...(boot === undefined ? {} : { bootId: boot }),
  };
  const token = randomBytes(8).toString("hex");
  const contentAt = (renewedAt: string): string => `${JSON.stringify({ ...me, renewedAt, leaseMs, token })}\n`;
  if (held.has(lockFile)) throw refuse({ lockFile, owner: me, why: `this process (${process.pid}) already holds it` });
  held.add(lockFile);
  let tookOver: StaleLock | undefined;
  try {
    // A few rounds at most: each one either wins, is refused, or saw another process move the lock.
    for (let round = 0; ; round += 1) {
      if (await createLock(lockFile, contentAt(startedAt))) break;
      const text = await readLock(lockFile);
      if (text !== undefined) {
        const verdict = await judge(text, me, lockFile, { leaseMs, now: now() });
        if ("live" in verdict) throw refuse(verdict.live);
        if (!(await removeStale(lockFile, text))) throw refuse({ lockFile, owner: undefined, why: "another process took it at the same moment" });
        tookOver = verdict.stale;
      }
      if (round >= 2) throw refuse({ lockFile, owner: undefined, why: "another process took it at the same moment" });
    }
  } catch (error) {
    held.delete(lockFile);
    throw error;
  }
  let released = false;
  let lost = false;
  let renewing: Promise<boolean> | undefined;
  const isMine = async (): Promise<boolean> => tokenOf(await readLock(lockFile)) === token;
  const renewOnce = async (): Promise<boolean> => {
    if (released || lost) return false;
    let temporary: string | undefined;
    try {
      if (!(await isMine())) {
        lost = true;
        clearInterval(timer);
        onRenewalFailed?.(`the lock ${lockFile} is no longer this process's (another run took it over after its lease ran out): it is not renewed any more`, { lockFile });
        return false;
      }
      temporary = await createTemporarySibling(lockFile, contentAt(utcNowRfc3339(now())));
      await rename(temporary, lockFile);
      temporary = undefined;
      return true;
    } catch (error) {
      onRenewalFailed?.(`could not renew the lock ${lockFile} (tried again in ${leaseMs / 6000} s): ${(error as Error).message}`, { lockFile, errno: errnoOf(error) });
      return false;
    } finally {
      if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => {});
    }
  };
  const renew = (): Promise<boolean> => {
    // One renewal at a time: a slow file system must not pile them up.
    renewing ??= renewOnce().finally(() => {
      renewing = undefined;
    });
    return renewing;
  };
  const timer = setInterval(() => void renew(), leaseMs / 6);
  timer.unref();
  return {
    lockFile,
    tookOver,
    renew,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing;
      held.delete(lockFile);
      // A lock another run took over after this one's lease ran out is that run's: it stays.
      if (!lost && (await isMine().catch(() => true))) await rm(lockFile, { force: true });
    },
  };
}

/** The token a lock's text holds (each holder's own), if any. */
function tokenOf(text: string | undefined): string | undefined {
  try {
    const json = text === undefined ? undefined : (JSON.parse(text) as { token?: unknown } | null);
    return typeof json?.token === "string" ? json.token : undefined;
  } catch {
    return undefined;
  }
}

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
  /** Removes the lock file (once; later calls do nothing). */
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
    if (typeof json?.pid === "number" && Number.isInteger(json.pid) && json.pid > 0 && typeof json.host === "string" && typeof json.startedAt === "string") {
      return {
        pid: json.pid,
        host: json.host,
        startedAt: json.startedAt,
        ...(typeof json.processStart === "string" ? { processStart: json.processStart } : {}),
        ...(typeof json.bootId === "string" ? { bootId: json.bootId } : {}),
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
async function judge(text: string, me: LockOwner, lockFile: string): Promise<{ stale: StaleLock } | { live: LockRefusal }> {
  if (text.startsWith(DANGLING_LINK)) {
    return { stale: { reason: "corrupt", owner: undefined, description: `the lock file ${lockFile} was a symbolic link to ${text.slice(DANGLING_LINK.length)}, which does not exist` } };
  }
  if (text.trim() === "") return { stale: { reason: "empty", owner: undefined, description: `the lock file ${lockFile} was empty` } };
  const owner = parseOwner(text);
  if (owner === undefined) return { stale: { reason: "corrupt", owner, description: `the lock file ${lockFile} did not name its owner` } };
  if (owner.host !== me.host) {
    return { live: { lockFile, owner, why: `process ${owner.pid} on host ${JSON.stringify(owner.host)} took it at ${owner.startedAt}, and a process of another host cannot be checked` } };
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
 * Takes the lock `lockFile`; a stale one (empty, corrupt, a link to nothing, or left by a process of
 * this host that is gone, its pid maybe reused) is
 * taken over and described in `tookOver`.
 *
 * @param refuse builds the error thrown when a live process (or one on another host, which cannot be
 *   checked) holds the lock, or another process took it at the same moment.
 * @throws the error of `refuse`; {FileSystemError} when the lock file cannot be created or read.
 */
export async function acquireLockFile(lockFile: string, refuse: (refusal: LockRefusal) => Error, options: { signal?: AbortSignal | undefined } = {}): Promise<HeldLock> {
  options.signal?.throwIfAborted();
  const [processStart, boot] = await Promise.all([processStartOf(process.pid), bootId()]);
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    startedAt: utcNowRfc3339(),
    ...(processStart === undefined ? {} : { processStart }),
    ...(boot === undefined ? {} : { bootId: boot }),
  };
  const content = `${JSON.stringify({ ...me, token: randomBytes(8).toString("hex") })}\n`;
  if (held.has(lockFile)) throw refuse({ lockFile, owner: me, why: `this process (${process.pid}) already holds it` });
  held.add(lockFile);
  let tookOver: StaleLock | undefined;
  try {
    // A few rounds at most: each one either wins, is refused, or saw another process move the lock.
    for (let round = 0; ; round += 1) {
      if (await createLock(lockFile, content)) break;
      const text = await readLock(lockFile);
      if (text !== undefined) {
        const verdict = await judge(text, me, lockFile);
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
  return {
    lockFile,
    tookOver,
    async release() {
      if (released) return;
      released = true;
      held.delete(lockFile);
      await rm(lockFile, { force: true });
    },
  };
}

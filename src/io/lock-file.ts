/**
 * A lock file: one holder at a time for a state file (`sync`) or an output folder (`export`, `sync`).
 * It holds the pid, host and start time of its owner, and appears with that content in one step: it
 * is written under a temporary name, flushed, then hard-linked to the lock's name, which fails when a
 * lock is already there. So a lock file is never seen empty or half-written while its owner lives,
 * and one that is (a crash on a file system that lost the data, a hand edit) is as stale as one whose
 * owner process is gone.
 *
 * Taking over a stale lock: the stale file is renamed aside (of two processes doing this at once only
 * one rename succeeds), checked to be the very file that was judged stale (else it is put back: it is
 * the fresh lock of a third process), removed, and a new lock is linked in; if another process linked
 * its lock first, this one is refused.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { link, readFile, rename, rm } from "node:fs/promises";
import { utcNowRfc3339 } from "../dates.js";
import { errnoOf, fileSystemError } from "../errors.js";
import { createExclusive, createTemporarySibling, temporaryNameFor } from "./atomic-file.js";

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  host: string;
  /** RFC 3339 UTC. */
  startedAt: string;
}

/** Why a lock was taken over. */
export type StaleLockReason =
  /** Its owner is a process of this host that is no longer running (a run that was killed). */
  | "dead-process"
  /** The file was empty. */
  | "empty"
  /** The file did not name an owner (not JSON, or fields missing). */
  | "corrupt";

/** A stale lock that was taken over. */
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

function parseOwner(text: string): LockOwner | undefined {
  try {
    const json = JSON.parse(text) as Partial<LockOwner> | null;
    if (typeof json?.pid === "number" && Number.isInteger(json.pid) && json.pid > 0 && typeof json.host === "string" && typeof json.startedAt === "string") {
      return { pid: json.pid, host: json.host, startedAt: json.startedAt };
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

async function readLock(lockFile: string): Promise<string | undefined> {
  try {
    return await readFile(lockFile, "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw fileSystemError("read the lock file", lockFile, error);
  }
}

/** Whether the lock whose text is `text` is stale, and why; or why it must be respected. */
function judge(text: string, me: LockOwner, lockFile: string): { stale: StaleLock } | { live: LockRefusal } {
  if (text.trim() === "") return { stale: { reason: "empty", owner: undefined, description: `the lock file ${lockFile} was empty` } };
  const owner = parseOwner(text);
  if (owner === undefined) return { stale: { reason: "corrupt", owner, description: `the lock file ${lockFile} did not name its owner` } };
  if (owner.host !== me.host) {
    return { live: { lockFile, owner, why: `process ${owner.pid} on host ${JSON.stringify(owner.host)} took it at ${owner.startedAt}, and a process of another host cannot be checked` } };
  }
  if (owner.pid !== process.pid && isAlive(owner.pid)) {
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
  const moved = await readFile(aside, "utf8").catch(() => undefined);
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
 * Takes the lock `lockFile`; a stale one (empty, corrupt, or left by a dead process of this host) is
 * taken over and described in `tookOver`.
 *
 * @param refuse builds the error thrown when a live process (or one on another host, which cannot be
 *   checked) holds the lock, or another process took it at the same moment.
 * @throws the error of `refuse`; {FileSystemError} when the lock file cannot be created or read.
 */
export async function acquireLockFile(lockFile: string, refuse: (refusal: LockRefusal) => Error, options: { signal?: AbortSignal | undefined } = {}): Promise<HeldLock> {
  options.signal?.throwIfAborted();
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: utcNowRfc3339() };
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
        const verdict = judge(text, me, lockFile);
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

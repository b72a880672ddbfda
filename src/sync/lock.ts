/**
 * One sync at a time per state file: `<state>.lock`, created exclusively (`O_EXCL`), holds the pid,
 * host and start time of its owner. A second sync finds it and is refused. A lock whose owner is a
 * dead process of this host (a sync that was killed) is taken over; the caller says so.
 */
import { hostname } from "node:os";
import { open, readFile, rm } from "node:fs/promises";
import { utcNowRfc3339 } from "../dates.js";
import { OcfSyncError } from "../errors.js";

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  host: string;
  /** RFC 3339 UTC. */
  startedAt: string;
}

/** Another sync holds the state's lock. */
export class SyncLockedError extends OcfSyncError {
  readonly lockFile: string;
  readonly owner: LockOwner | undefined;
  constructor(lockFile: string, owner: LockOwner | undefined, why: string) {
    super("SYNC_LOCKED", `another sync is using this state: ${why} (lock file ${lockFile}). Wait for it to finish; if it is truly gone, delete the lock file`);
    this.name = "SyncLockedError";
    this.lockFile = lockFile;
    this.owner = owner;
  }
}

/** A held lock. */
export interface SyncLock {
  readonly lockFile: string;
  /** The owner of a stale lock that was taken over, if any. */
  readonly tookOverFrom: LockOwner | undefined;
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const json = JSON.parse(text) as Partial<LockOwner>;
    if (typeof json.pid === "number" && Number.isInteger(json.pid) && json.pid > 0 && typeof json.host === "string" && typeof json.startedAt === "string") {
      return { pid: json.pid, host: json.host, startedAt: json.startedAt };
    }
  } catch {
    // an unreadable lock is treated as held: see below
  }
  return undefined;
}

async function createExclusive(lockFile: string, owner: LockOwner): Promise<boolean> {
  try {
    const handle = await open(lockFile, "wx");
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Takes the lock of `stateFile`.
 * @throws {SyncLockedError} when a live process (or one on another host, which cannot be checked) holds it
 */
export async function acquireSyncLock(stateFile: string, options: { signal?: AbortSignal } = {}): Promise<SyncLock> {
  options.signal?.throwIfAborted();
  const lockFile = `${stateFile}.lock`;
  const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: utcNowRfc3339() };
  let tookOverFrom: LockOwner | undefined;
  if (!(await createExclusive(lockFile, owner))) {
    let text: string;
    try {
      text = await readFile(lockFile, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      text = "";
    }
    const holder = parseOwner(text);
    if (text !== "") {
      // A lock being written right now, or damaged, is not proof of a dead owner: refuse.
      if (holder === undefined) throw new SyncLockedError(lockFile, undefined, "the lock file exists and does not name its owner");
      if (holder.host !== owner.host) {
        throw new SyncLockedError(lockFile, holder, `process ${holder.pid} on host ${JSON.stringify(holder.host)} took it at ${holder.startedAt}, and a process of another host cannot be checked`);
      }
      if (holder.pid === process.pid || isAlive(holder.pid)) {
        throw new SyncLockedError(lockFile, holder, `process ${holder.pid} took it at ${holder.startedAt} and is still running`);
      }
      tookOverFrom = holder;
      await rm(lockFile, { force: true });
    }
    // Two syncs taking over the same stale lock at once: only one exclusive create wins.
    if (!(await createExclusive(lockFile, owner))) {
      throw new SyncLockedError(lockFile, undefined, "another sync took the lock at the same moment");
    }
  }
  let released = false;
  return {
    lockFile,
    tookOverFrom,
    async release() {
      if (released) return;
      released = true;
      await rm(lockFile, { force: true });
    },
  };
}

/**
 * One sync at a time per state file: `<state>.lock` (see `src/io/lock-file.ts` for how it is created
 * and when a stale one is taken over). A second sync finds it and is refused.
 */
import { OcfSyncError } from "../errors.js";
import { acquireLockFile, type LockOptions, type LockOwner, type StaleLock } from "../io/lock-file.js";

export type { LockOwner, StaleLock } from "../io/lock-file.js";

/**
 * Another sync holds the state's lock.
 *
 * @category Errors
 */
export class SyncLockedError extends OcfSyncError {
  declare readonly code: "SYNC_LOCKED";
  readonly lockFile: string;
  readonly owner: LockOwner | undefined;
  constructor(lockFile: string, owner: LockOwner | undefined, why: string) {
    super("SYNC_LOCKED", `another sync is using this state: ${why} (lock file ${lockFile}). Wait for it to finish`);
    this.name = "SyncLockedError";
    this.lockFile = lockFile;
    this.owner = owner;
  }
}

/** A held lock. */
export interface SyncLock {
  readonly lockFile: string;
  /** The owner of a stale lock that was taken over, when it named one. */
  readonly tookOverFrom: LockOwner | undefined;
  /** The stale lock that was taken over (a dead owner, an empty or corrupt file), if any. */
  readonly tookOver: StaleLock | undefined;
  release(): Promise<void>;
}

/**
 * Takes the lock of `stateFile`, renewed while held. An empty or corrupt lock file, a link to nothing,
 * one left by a process of this host that is gone (its pid maybe reused by a later process), or one of
 * another host not renewed within its lease is taken over (`tookOver` says which).
 * @throws {SyncLockedError} when a live process (of this host, or of another within its lease) holds it
 */
export async function acquireSyncLock(stateFile: string, options: LockOptions = {}): Promise<SyncLock> {
  const lock = await acquireLockFile(`${stateFile}.lock`, ({ lockFile, owner, why }) => new SyncLockedError(lockFile, owner, why), options);
  return { lockFile: lock.lockFile, tookOverFrom: lock.tookOver?.owner, tookOver: lock.tookOver, release: () => lock.release() };
}

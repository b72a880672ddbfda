/**
 * One export or sync at a time per output folder: `<out>/.ocf-sync.lock` (created and taken over as
 * `src/io/lock-file.ts` describes). Two runs writing into one folder would race on its packages (one
 * race paired a report with the other run's package) and take each other's temporary files for
 * leftovers of a killed run.
 */
import { join } from "node:path";
import { OcfSyncError } from "../errors.js";
import type { Logger } from "../logger.js";
import { acquireLockFile, type HeldLock, type LockOptions, type LockOwner } from "../io/lock-file.js";

/** The lock file's name inside the output folder. */
export const OUTPUT_LOCK_FILE = ".ocf-sync.lock";

/**
 * Another export or sync is writing to the output folder.
 *
 * @category Errors
 */
export class OutputLockedError extends OcfSyncError {
  declare readonly code: "OUTPUT_LOCKED";
  readonly lockFile: string;
  readonly owner: LockOwner | undefined;
  constructor(outDir: string, lockFile: string, owner: LockOwner | undefined, why: string) {
    super(
      "OUTPUT_LOCKED",
      `another export or sync is writing to ${outDir}: ${why} (lock file ${lockFile}). Wait for it to finish, or write to another folder`,
    );
    this.name = "OutputLockedError";
    this.lockFile = lockFile;
    this.owner = owner;
  }
}

/**
 * Takes the lock of the output folder `outDir` (which must exist), renewed while held. A stale lock
 * (empty, corrupt, a link to nothing, left by a process of this host that is gone, its pid maybe
 * reused, or by another host and not renewed within its lease) is taken over and described in `tookOver`.
 *
 * @throws {OutputLockedError} when a live run holds it; {FileSystemError} when the folder cannot be written.
 */
export async function acquireOutputLock(outDir: string, options: LockOptions = {}): Promise<HeldLock> {
  return acquireLockFile(join(outDir, OUTPUT_LOCK_FILE), ({ lockFile, owner, why }) => new OutputLockedError(outDir, lockFile, owner, why), options);
}

/** The options of a job (`exportIssuers`, `sync`) that concern its locks. */
export interface JobLeaseOptions {
  signal?: AbortSignal | undefined;
  leaseMs?: number | undefined;
  logger?: Logger | undefined;
  onLockRenewalFailed?: ((message: string) => void) | undefined;
}

/** The lock options of a job: its lease, and a failed renewal logged as a warning and handed to its callback. */
export function jobLockOptions(options: JobLeaseOptions): LockOptions {
  return {
    signal: options.signal,
    leaseMs: options.leaseMs,
    onRenewalFailed: (message, fields) => {
      options.logger?.warn(fields, message);
      options.onLockRenewalFailed?.(message);
    },
  };
}

/**
 * Crash-test hook. With `OCF_SYNC_PAUSE_AT=<point>` in its environment, a process stops dead when an
 * export reaches that point: it prints `ocf-sync: paused at <point> (pid N)` on stderr and blocks until
 * it is killed. The SIGKILL tests use it to kill an export in exactly the state they target (records
 * half pulled, a complete package not yet in place, the previous package set aside) instead of
 * guessing with delays. Not for normal use; when unset, a point costs one comparison.
 */
import { writeSync } from "node:fs";

/** The points an export can be paused at, in the order it reaches them. */
export type PausePoint =
  /** Records are being pulled into the temporary folder (after the first one is written). */
  | "pulling"
  /** The package is complete, validated and zipped in its temporary folder, not yet in place. */
  | "before-commit"
  /** The previous package is set aside and the new one not yet renamed into its place. */
  | "between-renames"
  /** The new package folder is in place; its zip and report are not yet (the previous ones are there). */
  | "folder-committed"
  /** The folder and the zip are in place; the report is not yet. */
  | "zip-committed"
  /** The folder, zip and report are in place; without `--zip`, an earlier run's zip is not yet removed. */
  | "report-committed";

const PAUSE_AT = process.env.OCF_SYNC_PAUSE_AT;

/** Blocks the process for good at `point` when `OCF_SYNC_PAUSE_AT` names it; returns at once otherwise. */
export function pausePoint(point: PausePoint): void {
  if (PAUSE_AT !== point) return;
  writeSync(2, `ocf-sync: paused at ${point} (pid ${process.pid})\n`);
  // Blocks this thread (and so the whole process: no timer, I/O or signal handler runs) until SIGKILL.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

#!/usr/bin/env node
/** Process entry point: wires the real streams, environment and signals into `runCli`. */
import { boundHeapGrowth } from "./heap.js";
import { runCli, splitGlobalOptions } from "./main.js";
import { afterStopHint, exitBySignal, stopOnSignals } from "./signals.js";

// Before any work: memory that stays flat as issuers grow (see heap.ts).
boundHeapGrowth();

// Standard output that fails (a reader gone, `| head`; a full disk, `> /dev/full`) is runCli's to
// report (see guardStdout in main.ts): the job stops and cleans up, then ends with one line (status
// 1), or quietly with 141 for a reader gone, as SIGPIPE ends other tools. Listened to here too, so that
// the error is never an uncaught exception, whenever it comes.
process.stdout.on("error", () => {});
// A reader of standard error that goes away: nothing can be said any more, and the job goes on (its
// results are files and standard output), silently, instead of crashing with status 1.
process.stderr.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
});

// No handler of unhandled rejections: one is a bug and crashes with its trace. A run stopped by a
// signal or a failed standard output used to end so (work still under way when its consumer held an
// item rejected with the stop's reason before anything listened: src/pull/concurrent.ts), and a guard
// here hid it; concurrent.ts now holds such work as settled values (issue 25, item 4).

const controller = new AbortController();
stopOnSignals({ controller, stderr: process.stderr, exit: exitBySignal, hint: afterStopHint(splitGlobalOptions(process.argv.slice(2)).first) });

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
    // Interrupted: exit now rather than wait for whatever the abort could not stop.
    if (controller.signal.aborted) process.exit(code);
  },
  (error: unknown) => {
    // runCli handles every error itself; this is the last resort should that ever fail.
    process.stderr.write(`ocf-sync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);

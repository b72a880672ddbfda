#!/usr/bin/env node
/** Process entry point: wires the real streams, environment and signals into `runCli`. */
import { boundHeapGrowth } from "./heap.js";
import { runCli } from "./main.js";
import { exitBySignal, stopOnSignals } from "./signals.js";

// Before any work: memory that stays flat as issuers grow (see heap.ts).
boundHeapGrowth();

// A reader of standard output that goes away (`ocf-sync pull ... | head`) ends the process as SIGPIPE
// ends other tools: at once, quietly, with status 141 (128 + 13), not with an unhandled EPIPE error
// and its stack trace. Standard output is written only where nothing is left to clean up (the
// records of a pull to standard output, the summaries once the outputs are in place).
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(141);
});
// A reader of standard error that goes away: nothing can be said any more, and the job goes on (its
// results are files and standard output), silently, instead of crashing with status 1.
process.stderr.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
});

const controller = new AbortController();
stopOnSignals({ controller, stderr: process.stderr, exit: exitBySignal });

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

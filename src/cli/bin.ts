#!/usr/bin/env node
/** Process entry point: wires the real streams, environment and signals into `runCli`. */
import { boundHeapGrowth } from "./heap.js";
import { runCli } from "./main.js";
import { exitBySignal, stopOnSignals } from "./signals.js";

// Before any work: memory that stays flat as issuers grow (see heap.ts).
boundHeapGrowth();

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

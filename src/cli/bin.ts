#!/usr/bin/env node
/** Process entry point: wires the real streams, environment and Ctrl-C into `runCli`. */
import { runCli } from "./main.js";

const controller = new AbortController();
let interrupted = false;
process.on("SIGINT", () => {
  if (interrupted) process.exit(130); // a second Ctrl-C stops at once
  interrupted = true;
  process.stderr.write("\nstopping (press Ctrl-C again to quit at once)\n");
  controller.abort(new Error("interrupted"));
});
process.on("SIGTERM", () => controller.abort(new Error("terminated")));

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ocf-sync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);

/**
 * The CLI as a real child process, run from the sources through tsx (no build needed): what a user
 * gets from `ocf-sync ...`, with real stdout, stderr, environment and exit status.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");
/** `node` arguments that run the CLI's sources: tsx's loader, then the entry point. */
export const CLI_FROM_SOURCES = ["--import", import.meta.resolve("tsx"), resolve(PROJECT_ROOT, "src/cli/bin.ts")];

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ocf-sync args...` with exactly `env` (plus PATH) and resolves when it has exited. */
export function runCliProcess(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliRun> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [...CLI_FROM_SOURCES, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? "", ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") fail(error);
        else done({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      },
    );
  });
}

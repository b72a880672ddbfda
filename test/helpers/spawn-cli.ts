/**
 * Runs the real CLI in a child process (the same entry point as `bin/ocf-sync.js`, from the sources
 * through tsx, so that the tests run the code under test and not an older build), and lets a test wait
 * for a state of it (a line on stderr, the exit) instead of waiting for a fixed time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const ROOT = resolve(import.meta.dirname, "../..");

export interface SpawnedCli {
  child: ChildProcess;
  /** Every stderr line so far. */
  stderrLines: string[];
  /** Resolves with the first stderr line (so far or to come) that matches. Rejects if the process exits first. */
  waitForStderr(match: (line: string) => boolean): Promise<string>;
  /** Resolves when the process has exited and its output is read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function spawnCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): SpawnedCli {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/bin.ts"), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderrLines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let stdout = "";
  let finished = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  const lines = createInterface({ input: child.stderr! });
  lines.on("line", (line) => {
    stderrLines.push(line);
    for (const waiter of [...waiters]) {
      if (!waiter.match(line)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const closed = new Promise<void>((done) => lines.once("close", () => done()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((done) => {
    child.once("exit", (code, signal) => {
      void closed.then(() => {
        finished = true;
        for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the CLI exited (${code ?? signal}) before the awaited line; stderr:\n${stderrLines.join("\n")}`));
        done({ code, signal, stdout, stderr: stderrLines.join("\n") });
      });
    });
  });
  return {
    child,
    stderrLines,
    waitForStderr(match) {
      const seen = stderrLines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      if (finished) return Promise.reject(new Error(`the CLI had exited before the awaited line; stderr:\n${stderrLines.join("\n")}`));
      return new Promise((resolveLine, reject) => waiters.push({ match, resolve: resolveLine, reject }));
    },
    exited,
  };
}

/** Resolves once `ready()` is true, checking after each turn of the event loop (never a fixed delay to "let things happen"). */
export async function until(ready: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ready())) await new Promise((r) => setTimeout(r, 10));
}

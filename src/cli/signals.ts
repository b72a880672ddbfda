/**
 * SIGINT and SIGTERM: one signal stops everything the command does (its requests, file writes, waits
 * for the rate limiter or a retry) through the one `AbortSignal` every library call receives, so each
 * job cleans up as after a failure (its temporary files removed, earlier outputs untouched). The
 * process prints one line and exits 130 (SIGINT) or 143 (SIGTERM). A second signal ends it at once;
 * so does the end of a grace period, should some operation not stop (a read that the system cannot
 * abort, such as one from a FIFO with no writer).
 *
 * "At once" means by the signal itself: `process.exit()` waits for the thread pool, and a thread
 * stuck in such a read would hold it forever. The process removes its handlers and sends itself the
 * signal again, so the system ends it as it would have without handlers (the shell sees 130 or 143).
 */
import { InterruptedError } from "../errors.js";

export const INTERRUPT_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** What the signal's line tells a person to do next, by command: how to go on after the stop. */
export function afterStopHint(command: string | undefined): string | undefined {
  if (command === "export") return "to go on later, run the same command with --resume (packages written stay)";
  if (command === "sync") return "the next sync goes on from the state this one saved";
  return undefined;
}

/** How long cleaning up after a signal may take before the process exits anyway. */
export const DEFAULT_GRACE_MS = 30_000;

/**
 * Installs the handlers. `controller` is aborted with an `InterruptedError` at the first signal;
 * `exit` is called at the second, or when `graceMs` has passed since the first.
 * @returns a function that removes the handlers.
 */
export function stopOnSignals(options: {
  controller: AbortController;
  stderr: NodeJS.WritableStream;
  exit: (code: number, signal: "SIGINT" | "SIGTERM") => void;
  graceMs?: number;
  process?: Pick<NodeJS.Process, "on" | "off">;
  /** What to do next, said after the line (export: how to go on with --resume). */
  hint?: string | undefined;
}): () => void {
  const { controller, stderr, exit } = options;
  const target = options.process ?? process;
  let first: InterruptedError | undefined;
  const handlers = INTERRUPT_SIGNALS.map((name) => {
    const handler = (): void => {
      const reason = new InterruptedError(name);
      if (first !== undefined) {
        exit(reason.exitCode, name);
        return;
      }
      first = reason;
      const next = options.hint === undefined ? "" : `; ${options.hint}`;
      stderr.write(`ocf-sync: ${name} received: stopping and removing this run's temporary files (send it again to quit at once)${next}\n`);
      controller.abort(reason);
      setTimeout(() => exit(reason.exitCode, name), options.graceMs ?? DEFAULT_GRACE_MS).unref();
    };
    target.on(name, handler);
    return [name, handler] as const;
  });
  return () => {
    for (const [name, handler] of handlers) target.off(name, handler);
  };
}

/**
 * Ends the process by `signal` itself, now: its handlers removed, the default action of the signal
 * runs inside `process.kill`. Should the signal be ignored (a parent started the process with it
 * ignored), `process.exit(code)` follows.
 */
export function exitBySignal(code: number, signal: "SIGINT" | "SIGTERM"): never {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  process.exit(code);
}

import { DeadlineExceededError, isOcfSyncError } from "../errors.js";
import { AbortedError } from "./errors.js";

/**
 * Waits for a promise that other callers share (a token mint, a limiter turn) without tying it to one
 * caller's signal: the caller stops waiting when its signal fires, the shared work goes on.
 * Rejects with the signal's reason.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as unknown);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Whether `signal` has fired. A function rather than `signal?.aborted`, so that TypeScript does not
 * carry a narrowing from an earlier check across an `await`, after which the signal may have fired.
 */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * The error to throw for work that `signal` stopped: the signal's reason itself when it is an
 * ocf-sync error (a job deadline, an interrupt: its code says what happened), else an `ABORTED` error
 * saying what was stopped, with the reason as `cause`.
 */
export function abortError(what: string, signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (isOcfSyncError(reason)) return reason;
  return new AbortedError(what, reason);
}

/** `signal` (a job's, if any) that also fires when `stop` does (the consumer left the loop early). */
export function withStop(signal: AbortSignal | undefined, stop: AbortSignal): AbortSignal {
  return signal === undefined ? stop : AbortSignal.any([signal, stop]);
}

/** A signal for a job: the caller's signal, plus a deadline when one is given. */
export interface JobSignal {
  /** Fires when the caller's signal does, or with a `DeadlineExceededError` when the deadline passes. */
  signal: AbortSignal | undefined;
  /** Stops the deadline's timer; call it when the job ends. */
  dispose(): void;
}

/**
 * Combines the caller's `signal` with an overall deadline of `deadlineMs` from now. Without a
 * deadline, the caller's signal is passed through as it is.
 *
 * @throws {RangeError} for a deadline that is not a positive number of milliseconds.
 */
export function withDeadline(signal: AbortSignal | undefined, deadlineMs: number | undefined): JobSignal {
  if (deadlineMs === undefined) return { signal, dispose: () => {} };
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new RangeError(`deadlineMs must be a positive number of milliseconds, got ${deadlineMs}`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceededError(deadlineMs)), deadlineMs);
  // The deadline alone never keeps a process alive.
  timer.unref();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted === true) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

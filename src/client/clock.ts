/**
 * Time as the client sees it. Injected so that tests can drive backoff, token expiry and rate
 * limiting on a fake clock instead of waiting in real time.
 *
 * @category Client
 */
export interface Clock {
  /** Milliseconds since the Unix epoch (wall clock: `Retry-After` dates are compared with it). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds; rejects with the signal's reason as soon as `signal` aborts
   * (at once when it already has).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};

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

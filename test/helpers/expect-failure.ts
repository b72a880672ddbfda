/** Awaits a promise that must reject with an ocf-sync error, and returns that error. */
import { isOcfSyncError } from "../../src/errors.js";

export async function failure(promise: Promise<unknown>): Promise<Error & { code: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isOcfSyncError(error)) throw new Error(`expected an OcfSyncError, got ${String(error)}`);
  return error;
}

/**
 * The base of every error ocf-sync throws. Each carries a stable `code` that callers can switch on,
 * and the original error as `cause`. Messages never contain secrets (tokens, client secrets).
 */
const BRAND = Symbol.for("ocf-sync.error");

/**
 * The base class of every error ocf-sync throws or reports: switch on its `code`, or test with
 * {@link isOcfSyncError} (which also recognises errors from another copy of the package).
 */
export class OcfSyncError extends Error {
  readonly [BRAND] = true;
  /** A stable, machine-readable code such as `SOURCE_RECORD_INVALID` or `API_NOT_FOUND`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = "OcfSyncError";
  }
}

/**
 * True for any error thrown by ocf-sync. Works by a global brand as well as by `instanceof`, so it
 * still answers correctly when two copies of the package are loaded.
 */
export function isOcfSyncError(error: unknown): error is OcfSyncError {
  return (
    error instanceof OcfSyncError ||
    (typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[BRAND] === true)
  );
}

/**
 * `error` as an {@link OcfSyncError}: itself when it is one; otherwise (a file-system error, a bug) a
 * new one with code `UNEXPECTED`, the original's message and the original as `cause`. Every failure
 * a job reports per issuer goes through here, so that callers can always switch on `code`.
 */
export function asOcfSyncError(error: unknown): OcfSyncError {
  if (isOcfSyncError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new OcfSyncError("UNEXPECTED", message, { cause: error });
}

/** A short, single-line rendering of any value for an error message (at most `max` characters). */
export function describeValue(value: unknown, max = 80): string {
  let text: string;
  if (value === undefined) text = "undefined";
  else if (typeof value === "string") text = JSON.stringify(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Text safe to print on a terminal: control characters and bidirectional overrides (which could hide
 * or reorder what a reader sees) are shown as `\uXXXX` escapes. For ids and messages that came from
 * the API or a file.
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

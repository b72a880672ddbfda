/**
 * The base of every error ocf-sync throws. Each carries a stable `code` that callers can switch on,
 * and the original error as `cause`. Messages never contain secrets (tokens, client secrets).
 */
import type { OcfSyncErrorCode } from "./error-codes.js";

const BRAND = Symbol.for("ocf-sync.error");

/**
 * The base class of every error ocf-sync throws or reports: switch on its `code`, or test with
 * {@link isOcfSyncError} (which also recognises errors from another copy of the package).
 *
 * @category Errors
 */
export class OcfSyncError extends Error {
  readonly [BRAND] = true;
  /** A stable, machine-readable code such as `SOURCE_RECORD_INVALID` or `API_NOT_FOUND`: one of {@link OCF_SYNC_ERROR_CODES}. */
  readonly code: OcfSyncErrorCode;

  constructor(code: OcfSyncErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = "OcfSyncError";
  }
}

/**
 * True for any error thrown by ocf-sync. Works by a global brand as well as by `instanceof`, so it
 * still answers correctly when two copies of the package are loaded.
 *
 * @category Errors
 */
export function isOcfSyncError(error: unknown): error is OcfSyncError {
  return (
    error instanceof OcfSyncError ||
    (typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[BRAND] === true)
  );
}

/**
 * `error` as an {@link OcfSyncError}: itself when it is one; a file-system failure that no layer named
 * a {@link FileSystemError} (see {@link asFileSystemFailure}); anything else (a bug) a new one with
 * code `UNEXPECTED`, the original's message and the original as `cause`. Every failure a job reports
 * per issuer goes through here, so that callers can always switch on `code`.
 */
export function asOcfSyncError(error: unknown, where?: string): OcfSyncError {
  const failure = asFileSystemFailure(error, where);
  if (isOcfSyncError(failure)) return failure;
  const message = error instanceof Error ? error.message : String(error);
  return new OcfSyncError("UNEXPECTED", message, { cause: error });
}

/** A short, single-line rendering of any value for an error message (at most `max` characters). */
export function describeValue(value: unknown, max = 80): string {
  let text: string;
  if (value === undefined) text = "undefined";
  else if (typeof value === "string") text = JSON.stringify(value);
  // JSON writes NaN and ±Infinity as `null`: a message would name another value than the one given.
  else if (typeof value === "number" && !Number.isFinite(value)) text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      // Too deep for JSON.stringify (or cyclic): String() would recurse the same way on nested arrays.
      text = Array.isArray(value) ? "[an array]" : typeof value === "object" && value !== null ? "[an object]" : String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Text safe to print on a terminal: control characters (C0 with CR and LF, DEL, C1), line and paragraph
 * separators and bidirectional overrides, which could retitle or clear a terminal, forge a log line,
 * or hide or reorder what a reader sees, are shown as `\uXXXX` escapes (ESC as `\u001b`). For ids and
 * messages that came from the API or a file: the one function every printed line of such text goes
 * through (log lines, tables, reports, error lines).
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, escapeCharacter);
}

/**
 * `JSON.stringify(value, null, space)` safe to print on a terminal, and the same JSON: JSON.stringify
 * escapes C0 in strings but leaves DEL, C1 (U+009B is a CSI to many terminals), U+2028/2029 and the
 * bidirectional overrides raw; they can only be in strings, where `\uXXXX` is the same character. The
 * C0 characters left are the document's own line breaks.
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? "null").replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, escapeCharacter);
}

function escapeCharacter(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * The job's overall deadline passed (the `deadlineMs` option, `--deadline` on the command line):
 * everything under way was stopped. The signal that stops the job carries this error as its reason.
 *
 * @category Errors
 */
export class DeadlineExceededError extends OcfSyncError {
  declare readonly code: "DEADLINE_EXCEEDED";
  /** The deadline, in milliseconds from the start of the job. */
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    super("DEADLINE_EXCEEDED", `the job's deadline of ${formatMilliseconds(deadlineMs)} passed before it finished; what was under way was stopped`);
    this.name = "DeadlineExceededError";
    this.deadlineMs = deadlineMs;
  }
}

/**
 * The process was asked to stop (SIGINT, SIGTERM): the reason of the signal that stops the job.
 * `exitCode` is the shell's convention, 128 + the signal number.
 *
 * @category Errors
 */
export class InterruptedError extends OcfSyncError {
  declare readonly code: "INTERRUPTED";
  readonly signalName: "SIGINT" | "SIGTERM";
  readonly exitCode: 130 | 143;

  constructor(signalName: "SIGINT" | "SIGTERM") {
    super("INTERRUPTED", `interrupted by ${signalName}`);
    this.name = "InterruptedError";
    this.signalName = signalName;
    this.exitCode = signalName === "SIGINT" ? 130 : 143;
  }
}

/**
 * True for an {@link InterruptedError}, also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isInterruptedError(error: unknown): error is InterruptedError {
  return isOcfSyncError(error) && error.code === "INTERRUPTED";
}

/**
 * True for a {@link DeadlineExceededError}, also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isDeadlineExceededError(error: unknown): error is DeadlineExceededError {
  return isOcfSyncError(error) && error.code === "DEADLINE_EXCEEDED";
}

/** `1500` → `"1.5 s"`, `90000` → `"90 s"`, `300` → `"300 ms"`: durations in messages. */
export function formatMilliseconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** What a file-system operation was doing when it failed, for the message: "create the folder", … */
export type FileOperation = string;

/**
 * A file or folder could not be read or written: the path does not exist, is a file where a folder
 * belongs (or the other way round), is not writable, is on a read-only file system, the disk is
 * full, … `errno` is the system's code (`ENOENT`, `EEXIST`, `EACCES`, …). Never retried: trying again
 * cannot make a path writable.
 *
 * @category Errors
 */
export class FileSystemError extends OcfSyncError {
  declare readonly code: "FILE_SYSTEM_ERROR";
  /** The path the operation was about. */
  readonly path: string;
  /** The system error code, e.g. `EACCES`; `undefined` when the failure was found without one. */
  readonly errno: string | undefined;

  constructor(operation: FileOperation, path: string, why: string, options: { errno?: string | undefined; cause?: unknown } = {}) {
    super("FILE_SYSTEM_ERROR", `cannot ${operation} ${path}: ${why}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FileSystemError";
    this.path = path;
    this.errno = options.errno;
  }
}

/**
 * True for a {@link FileSystemError}, also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isFileSystemError(error: unknown): error is FileSystemError {
  return isOcfSyncError(error) && error.code === "FILE_SYSTEM_ERROR";
}

/** The `code` of a Node.js system error (`ENOENT`, …), or `undefined`. */
export function errnoOf(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

const ERRNO_SENTENCES: Readonly<Record<string, string>> = {
  ENOENT: "it does not exist (or a folder on its way does not)",
  ENOTDIR: "a part of the path is a file where a folder should be",
  EISDIR: "it is a folder, not a file",
  EEXIST: "something else already exists there",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EMFILE: "too many files are open",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links on the way",
  EXDEV: "it is on another file system than its temporary file",
  EBUSY: "it is busy",
  EIO: "an input/output error occurred",
};

/**
 * A file-system failure that no layer named (the disk full, a folder gone, permission denied, from a
 * write deep in a package writer) as a {@link FileSystemError} naming the path the system gave, else
 * `where` (the folder the job was writing: an issuer's package, the sync state); any other error (an
 * ocf-sync error, an abort, a bug, a raw network error) as it is.
 */
export function asFileSystemFailure(error: unknown, where?: string): unknown {
  const errno = errnoOf(error);
  // Only the file system's own codes: a raw network error (ECONNRESET) is no file's fault.
  if (errno === undefined || !(errno in ERRNO_SENTENCES) || isOcfSyncError(error)) return error;
  const systemPath = (error as { path?: unknown }).path;
  const path = typeof systemPath === "string" ? systemPath : where;
  if (path === undefined) return error;
  const syscall = (error as { syscall?: unknown }).syscall;
  return fileSystemError((typeof syscall === "string" ? SYSCALL_OPERATIONS[syscall] : undefined) ?? "write", path, error);
}

/** What a failed system call was doing, for the message of `asOcfSyncError`. */
const SYSCALL_OPERATIONS: Readonly<Record<string, FileOperation>> = {
  open: "open", read: "read", write: "write", fsync: "flush", fdatasync: "flush", close: "close", rename: "rename", link: "link",
  mkdir: "create the folder", mkdtemp: "create a folder in", rmdir: "remove", unlink: "remove", rm: "remove", scandir: "read the folder",
  stat: "read", lstat: "read", fstat: "read", copyfile: "copy", ftruncate: "write",
};

/**
 * A system error turned into a {@link FileSystemError} with a sentence a person can act on; any
 * other error (an ocf-sync error, an abort) is returned as it is.
 */
export function fileSystemError(operation: FileOperation, path: string, error: unknown): unknown {
  const errno = errnoOf(error);
  if (errno === undefined || isOcfSyncError(error)) return error;
  const sentence = ERRNO_SENTENCES[errno] ?? (error instanceof Error ? error.message : String(error));
  return new FileSystemError(operation, path, `${sentence} (${errno})`, { errno, cause: error });
}

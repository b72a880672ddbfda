import type { OcfSyncErrorCode } from "../error-codes.js";
import { isFileSystemError, isOcfSyncError } from "../errors.js";
import type { Redactor } from "../redaction.js";

/** What a command may touch of the outside world, injectable so tests run commands in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * The one signal that stops everything the command does: fired with an `InterruptedError` on SIGINT
   * or SIGTERM (see `signals.ts`). Commands pass it to every library call.
   */
  signal?: AbortSignal;
  /**
   * Knows the secrets the command was given (flags and environment) and, once the client has it, every
   * token minted: the client adds to it, `--json` documents are redacted with it, and standard error
   * is redacted whole with it, whoever writes to it. `runCli` makes it.
   */
  redactor?: Redactor;
  /** The clock of the `generatedAt` a `--json` document is stamped with; default `Date.now`. */
  now?: () => number;
}

/**
 * A mistake in how the command was called, or an argument that cannot be used (a path that is not
 * writable, a file where a folder belongs): printed with its code when it has one, exit status 2.
 */
export class UsageError extends Error {
  /** A stable code when the mistake has one (`FILE_SYSTEM_ERROR` for a path), else `undefined`. */
  readonly code: string | undefined;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UsageError";
    this.code = options.code;
  }
}

/** The line that says where the help of `command` is, which closes a usage error. */
export function helpLine(command: string): string {
  return `Run 'ocf-sync ${command} --help' for the options.`;
}

/**
 * The message of a usage error of `command` as it is printed, in text, in a JSON log line and in a
 * `--json` document alike: a mistake in how the command was called ends with where the help is (once,
 * whether the message had it or not). An argument with a code of its own (a path that cannot be used,
 * `FILE_SYSTEM_ERROR`) is left as it is: what is wrong is the path, which no help fixes.
 */
export function usageErrorMessage(command: string, error: UsageError): string {
  return error.code !== undefined || error.message.includes(helpLine(command)) ? error.message : `${error.message}\n${helpLine(command)}`;
}

/** The code of a usage error that has none of its own, where a code is always given (JSON output). */
export const USAGE_ERROR_CODE = "USAGE_ERROR" satisfies OcfSyncErrorCode;
/** The code of a failure that is a bug in ocf-sync (no typed error, no system error), in JSON output. */
export const UNEXPECTED_ERROR_CODE = "UNEXPECTED" satisfies OcfSyncErrorCode;

/** The stable code of an issuer's or a job's failure: an ocf-sync error's own, else `UNEXPECTED`. */
export function failureCodeOf(error: unknown): OcfSyncErrorCode {
  return isOcfSyncError(error) ? error.code : UNEXPECTED_ERROR_CODE;
}

/** A file-system error about an argument's path, as the usage error it is (exit status 2); anything else unchanged. */
export function asArgumentError(option: string, error: unknown): unknown {
  return isFileSystemError(error) ? new UsageError(`--${option}: ${error.message}`, { code: error.code, cause: error }) : error;
}

export function writeLine(stream: NodeJS.WritableStream, line = ""): void {
  stream.write(`${line}\n`);
}

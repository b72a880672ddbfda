/**
 * `--json` of the commands that take it (`export`, `sync`, `validate`, `reconcile`): one JSON document on standard output,
 * whatever happens. The job's own document when it runs (its summary, its change set); when the job
 * cannot run or fails as a whole, a document of the same shape that says why.
 */
import { errnoOf, isInterruptedError, isOcfSyncError, terminalSafeJson } from "../errors.js";
import { typedFlag } from "./args.js";
import type { CommandName } from "./command-options.js";
import { UNEXPECTED_ERROR_CODE, USAGE_ERROR_CODE, UsageError, usageErrorMessage, writeLine, type CliIo } from "./io.js";

/** What failed, as a `--json` document states it: a stable code and one message, never a stack or a secret. */
export interface JsonFailure {
  code: string;
  message: string;
}

/**
 * The code and message of a failure of a whole job: a usage error's code (`USAGE_ERROR` when it has
 * none), an ocf-sync error's, a system error's errno, else `UNEXPECTED`. A usage error's message is the
 * one printed on standard error too (the document is redacted as a whole when printed).
 */
export function jobFailureOf(error: unknown, io: CliIo, command: CommandName): JsonFailure {
  const code = error instanceof UsageError ? (error.code ?? USAGE_ERROR_CODE) : isOcfSyncError(error) ? error.code : (errnoOf(error) ?? UNEXPECTED_ERROR_CODE);
  const message = error instanceof UsageError ? usageErrorMessage(command, error) : error instanceof Error ? error.message : String(error);
  return { code, message };
}

/**
 * The entries of a job's `--json` document for issuers that a failure of the whole job left undone:
 * each one failed by it, as the issuers a deadline stops are.
 */
export function failedIssuers(issuers: readonly string[], failure: JsonFailure): { issuerId: string; status: "failed"; error: JsonFailure }[] {
  return issuers.map((issuerId) => ({ issuerId, status: "failed", error: failure }));
}

/**
 * Prints `document` as the command's one JSON document on standard output, every string in it (an
 * issuer's error message quoting the server, a path) redacted of the secrets in play.
 */
export function writeJsonDocument(io: CliIo, document: unknown): void {
  writeLine(io.stdout, terminalSafeJson(io.redactor === undefined ? document : io.redactor.redactValue(document), 2));
}

/**
 * Runs a command that takes `--json` so that, when it was asked for, one document is printed whatever
 * happens: `run` prints the job's own through `print`; when it throws before it has (its arguments
 * cannot be used, its output folder cannot, another run holds the lock, the state cannot be read),
 * `failureDocument` of the failure is printed instead. The failure then goes on to the error boundary:
 * the same line on standard error, the same exit status. A run stopped by a signal prints nothing
 * more. `--json` is read from the arguments as typed, since they may be what cannot be parsed.
 */
export async function withJsonDocument(
  io: CliIo,
  command: CommandName,
  argv: readonly string[],
  run: (print: (document: unknown) => void) => Promise<number>,
  failureDocument: (failure: JsonFailure) => unknown,
): Promise<number> {
  let printed = false;
  try {
    return await run((document) => {
      writeJsonDocument(io, document);
      printed = true;
    });
  } catch (error) {
    const interrupted = isInterruptedError(error) || isInterruptedError(io.signal?.reason);
    if (!printed && !interrupted && typedFlag(argv, "json")) writeJsonDocument(io, failureDocument(jobFailureOf(error, io, command)));
    throw error;
  }
}

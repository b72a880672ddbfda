/**
 * `--json` of the commands that take it (`export`, `sync`, `validate`, `reconcile`, `summarize`): one JSON
 * document on standard output, whatever happens, stamped with the version and the time it was made
 * (`document-stamp.ts`). The job's own document when it runs (export's and sync's run record, a
 * validation or reconciliation report); when the job cannot run or fails as a whole, a document of the
 * same shape that says why. Each has a JSON Schema in `schemas/` (docs/output-formats.md).
 */
import { stamped } from "../document-stamp.js";
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
 * Prints `document` as the command's one JSON document on standard output, every string in it (an
 * issuer's error message quoting the server, a path) redacted of the secrets in play. It opens with
 * the stamp (the version and `generatedAt`, the time of `io.now`): a document stamped already (a run
 * record, as of its end) keeps its own.
 */
export function writeJsonDocument(io: CliIo, document: object): void {
  const whole = isStamped(document) ? document : stamped(document, (io.now ?? Date.now)());
  writeLine(io.stdout, terminalSafeJson(io.redactor === undefined ? whole : io.redactor.redactValue(whole), 2));
}

function isStamped(document: object): boolean {
  return "ocfSyncVersion" in document && "generatedAt" in document;
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
  run: (print: (document: object) => void) => Promise<number>,
  failureDocument: (failure: JsonFailure, error: unknown) => object,
): Promise<number> {
  let printed = false;
  try {
    return await run((document) => {
      writeJsonDocument(io, document);
      printed = true;
    });
  } catch (error) {
    const interrupted = isInterruptedError(error) || isInterruptedError(io.signal?.reason);
    if (!printed && !interrupted && typedFlag(argv, "json")) writeJsonDocument(io, failureDocument(jobFailureOf(error, io, command), error));
    throw error;
  }
}
